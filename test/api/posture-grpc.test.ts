// The router posture stream over real mutual TLS: a router certificate issued by the node CA
// (node-forge) streams posture events for several identities, sees acknowledgements and a
// session revoked, shows online while connected, and is cut off by re-enroll.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createHash, X509Certificate } from 'node:crypto';
import { PostureStream } from '../../src/rpc/posture-stream-client.js';
import type { WireAccessChange } from '../../src/rpc/posture-wire.js';
import { makeCa, makeLeaf, type TestCert } from '../support/test-pki.js';
import { startTestNode, type TestNode } from '../support/test-node.js';

let node: TestNode;
let routerId: string;
let routerCert: TestCert;
let checkId: string;
let serviceId: string;
const users: { id: string; token: string }[] = [];
const changes: WireAccessChange[] = [];

const admin = () => node.adminToken;

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post(path, body, admin());
  assert.equal(res.status, 201, `${path} ${res.text}`);
  return res.body.data.id as string;
}

function open(cert: Partial<TestCert> = routerCert): PostureStream {
  return PostureStream.open({
    address: node.handle.grpcAddress,
    caPem: node.handle.caPem,
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    serverName: 'localhost',
    onAccessChange: (change) => changes.push(change),
  });
}

const os = (version: string) => ({ id: checkId, typeId: 'OS', type: 'Linux', version });

async function routerOnline(): Promise<boolean> {
  const res = await node.mgmt.get(`/edge-routers/${routerId}`, admin());
  assert.equal(res.status, 200, res.text);
  return res.body.data.isOnline;
}

async function connected(identityId: string): Promise<boolean> {
  return (await node.mgmt.get(`/identities/${identityId}`, admin())).body.data.hasEdgeRouterConnection;
}

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

before(async () => {
  node = await startTestNode();
  routerId = await create('/edge-routers', { name: 'g-router', roleAttributes: ['g'] });
  const pki = join(node.dataDir, 'pki');
  const ca = { certPem: await readFile(join(pki, 'ca.pem'), 'utf8'), keyPem: await readFile(join(pki, 'ca.key.pem'), 'utf8') };
  routerCert = makeLeaf(ca, routerId);
  const fingerprint = createHash('sha1').update(new X509Certificate(routerCert.certPem).raw).digest('hex');
  await node.handle.proposer.propose([{ op: 'set', kind: 'edge-routers', id: routerId, fields: { fingerprint, isVerified: true } }]);
  await create('/edge-router-policies', { name: 'g-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#g'] });
  await create('/service-edge-router-policies', { name: 'g-serp', semantic: 'AnyOf', serviceRoles: ['#all'], edgeRouterRoles: ['#g'] });
  serviceId = await create('/services', { name: 'g-svc', encryptionRequired: true });
  checkId = await create('/posture-checks', { name: 'g-os', typeId: 'OS', roleAttributes: ['g-os'], operatingSystems: [{ type: 'Linux', versions: ['>=5.10.0'] }] });
  for (let i = 0; i < 3; i++) users.push(await node.createUser(`g-user-${i}`));
  await create('/service-policies', {
    name: 'g-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: users.map((u) => `@${u.id}`), serviceRoles: [`@${serviceId}`], postureCheckRoles: ['#g-os'],
  });
});
after(async () => {
  await node?.close();
});

describe('PostureService.StreamPostureEvents', () => {
  it('refuses a stream without a client certificate', async () => {
    const stream = open({ certPem: undefined, keyPem: undefined });
    await assert.rejects(stream.send({ identityId: users[0]!.id, responses: [os('6.1.0')] }), (err: { code?: number }) => err.code === 16);
    stream.cancel();
  });

  it('refuses a certificate from another CA', async () => {
    const stranger = makeLeaf(makeCa('not-the-node-ca'), routerId);
    const stream = open(stranger);
    await assert.rejects(stream.send({ identityId: users[0]!.id, responses: [os('6.1.0')] }), (err: { code?: number }) => err.code === 16);
    stream.cancel();
  });

  describe('with the router certificate', () => {
    let stream: PostureStream;
    let sessionId: string;

    before(() => {
      stream = open();
    });

    it('acknowledges events for several identities and shows the router online', async () => {
      const acks = await Promise.all(users.map((u) => stream.send({ identityId: u.id, responses: [os('6.1.0')] })));
      assert.deepEqual(acks.map((a) => [a.identityId, a.status]), users.map((u) => [u.id, 'STATUS_ACCEPTED']));
      assert.equal(await routerOnline(), true);
      for (const u of users) assert.equal(await connected(u.id), true);
      const data = (await node.mgmt.get(`/identities/${users[1]!.id}/posture-data`, admin())).body.data;
      assert.equal(data.os.version, '6.1.0');
    });

    it('lets the identities get sessions with the posture the router reported', async () => {
      const res = await node.client.post('/sessions', { serviceId, type: 'Dial' }, users[0]!.token);
      assert.equal(res.status, 201, res.text);
      sessionId = res.body.data.id;
      assert.equal(res.body.data.edgeRouters[0].isOnline, true);
    });

    it('revokes the session when the router reports failing posture, and pushes the access change', async () => {
      const ack = await stream.send({ identityId: users[0]!.id, responses: [os('4.19.0')] });
      assert.equal(ack.status, 'STATUS_ACCEPTED');
      assert.deepEqual(ack.revokedSessionIds, [sessionId]);
      assert.equal((await node.mgmt.get(`/sessions/${sessionId}`, admin())).status, 404);
      await eventually(() => changes.some((c) => c.identityId === users[0]!.id), 'the access change');
      const change = changes.find((c) => c.identityId === users[0]!.id)!;
      assert.equal(change.reason, 'REASON_POSTURE');
      assert.deepEqual(change.revoked.map((r) => [r.sessionId, r.serviceId, r.type]), [[sessionId, serviceId, 'Dial']]);
    });

    it('rejects events for unknown identities and invalid responses in their acknowledgement', async () => {
      const unknown = await stream.send({ identityId: 'no-such-identity', responses: [os('6.1.0')] });
      assert.equal(unknown.status, 'STATUS_REJECTED');
      assert.equal(unknown.errorCode, 'NOT_FOUND');
      const invalid = await stream.send({ identityId: users[1]!.id, responses: [{ id: 'x', typeId: 'NOPE' }] });
      assert.equal(invalid.status, 'STATUS_REJECTED');
      assert.equal(invalid.errorCode, 'COULD_NOT_VALIDATE');
    });

    it('is closed by re-enroll, and the certificate is refused afterwards', async () => {
      const res = await node.mgmt.post(`/edge-routers/${routerId}/re-enroll`, {}, admin());
      assert.equal(res.status, 200, res.text);
      await assert.rejects(stream.closed, (err: { code?: number }) => err.code === 16);
      await eventually(async () => !(await routerOnline()), 'the router to go offline');
      assert.equal(await connected(users[1]!.id), false);
      const again = open();
      await assert.rejects(again.send({ identityId: users[1]!.id, responses: [os('6.1.0')] }), (err: { code?: number }) => err.code === 16);
      again.cancel();
    });
  });
});
