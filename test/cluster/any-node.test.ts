// Three Weft node processes on a three-server JetStream cluster behind HAProxy (TCP mode): one
// CA, any node answers any request and reads every node's writes at once, sessions and unique
// names are cluster-wide, concurrent updates through two nodes lose nothing, certificate login
// works through the balancer, and a fourth, fresh node joins and catches up.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, it } from 'node:test';
import { createCsr, newKey } from '../support/csr.js';
import { startCluster, type Cluster } from '../support/cluster.js';
import type { ApiClient } from '../support/test-node.js';

const STARTUP = { timeout: 180_000 };

describe('a cluster of three nodes behind HAProxy', () => {
  let cluster: Cluster;
  let token: string;
  /** Ids created by the tests below; the fourth node must read them all. */
  const created: string[] = [];
  let names = 0;

  before(async () => {
    cluster = await startCluster();
    token = await cluster.setUp(() => cluster.login());
  }, STARTUP);
  after(async () => {
    await cluster?.close();
  });
  afterEach((t) => cluster?.reportIfFailed(t));

  const nodes = () => cluster.nodes;
  const createOn = async (api: ApiClient, name = `any-node-${++names}`) => {
    const res = await api.post('/identities', { name, type: 'User', isAdmin: false, roleAttributes: ['first'] }, token);
    assert.equal(res.status, 201, res.text);
    created.push(res.body.data.id);
    return res.body.data.id as string;
  };

  it('every node serves a certificate of the one cluster CA; the balancer spreads connections over all nodes', { timeout: 60_000 }, async () => {
    for (const node of nodes()) {
      assert.equal(readFileSync(node.caPath, 'utf8'), cluster.caPem, `${node.name} writes the cluster CA to <data>/pki/ca.pem`);
      const res = await node.mgmt.get('/version'); // TLS verified against the cluster CA only
      assert.equal(res.status, 200, res.text);
    }
    const before = await cluster.balancer!.stats();
    for (let i = 0; i < 6; i++) assert.equal((await cluster.lb.get('/version')).status, 200);
    const now = await cluster.balancer!.stats();
    for (const node of nodes()) {
      const got = (now.get(node.name)?.connections ?? 0) - (before.get(node.name)?.connections ?? 0);
      assert.ok(got >= 1, `${node.name} got ${got} of 6 connections through the balancer`);
    }
  });

  it('reads on every node, at once, what any node just created, updated or deleted', { timeout: 60_000 }, async () => {
    for (const [i, writer] of nodes().entries()) {
      const id = await createOn(writer.mgmt);
      for (const reader of nodes()) {
        const got = await reader.mgmt.get(`/identities/${id}`, token);
        assert.equal(got.status, 200, `created on ${writer.name}, read on ${reader.name}: ${got.text}`);
        assert.deepEqual(got.body.data.roleAttributes, ['first']);
      }
      const updater = nodes()[(i + 1) % nodes().length];
      const patched = await updater.mgmt.patch(`/identities/${id}`, { roleAttributes: [`by-${updater.name}`] }, token);
      assert.equal(patched.status, 200, patched.text);
      for (const reader of nodes()) {
        const got = await reader.mgmt.get(`/identities/${id}`, token);
        assert.deepEqual(got.body.data.roleAttributes, [`by-${updater.name}`], `patched on ${updater.name}, read on ${reader.name}`);
      }
    }
    const doomed = await createOn(nodes()[0].mgmt);
    created.pop();
    assert.equal((await nodes()[1].mgmt.delete(`/identities/${doomed}`, token)).status, 200);
    for (const reader of nodes()) {
      assert.equal((await reader.mgmt.get(`/identities/${doomed}`, token)).status, 404, `deleted on n2, read on ${reader.name}`);
    }
  });

  it('a session from one node works on every node, and a logout on another ends it everywhere', { timeout: 60_000 }, async () => {
    const [a, b, c] = nodes();
    const session = await cluster.login(a.mgmt);
    for (const node of nodes()) {
      const res = await node.mgmt.get('/current-api-session', session);
      assert.equal(res.status, 200, `a token from ${a.name} on ${node.name}: ${res.text}`);
    }
    assert.equal((await b.mgmt.delete('/current-api-session', session)).status, 200);
    for (const node of [a, c, b]) {
      const res = await node.mgmt.get('/current-api-session', session);
      assert.equal(res.status, 401, `logged out on ${b.name}, used on ${node.name}: ${res.text}`);
    }
  });

  it('one name created at the same moment on two nodes is created once; the other gets a duplicate error', { timeout: 90_000 }, async () => {
    for (let round = 0; round < 10; round++) {
      const name = `same-name-${round}`;
      const [a, b] = [nodes()[round % 3], nodes()[(round + 1) % 3]];
      const answers = await Promise.all([a, b].map((n) => n.mgmt.post('/identities', { name, type: 'User', isAdmin: false }, token)));
      const statuses = answers.map((r) => r.status).sort();
      assert.equal(statuses.filter((s) => s === 201).length, 1, `round ${round} on ${a.name} and ${b.name}: ${answers.map((r) => `${r.status} ${r.text}`).join(' | ')}`);
      const refused = answers.find((r) => r.status !== 201)!;
      assert.ok([400, 409].includes(refused.status), `the second create is refused as a duplicate: ${refused.status} ${refused.text}`);
      assert.ok(refused.body?.error?.code, refused.text);
      created.push(answers.find((r) => r.status === 201)!.body.data.id);
      for (const node of nodes()) {
        const list = await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name="${name}"`)}`, token);
        assert.equal(list.status, 200, list.text);
        assert.equal(list.body.data.length, 1, `${node.name} lists ${list.body.data.length} identities named ${name}`);
      }
    }
  });

  it('two nodes updating one identity at once lose no update', { timeout: 120_000 }, async () => {
    const id = await createOn(cluster.lb, 'contended');
    const fields: [string, (round: number) => unknown][] = [
      ['tags', (r) => ({ round: r })],
      ['appData', (r) => ({ round: r })],
      ['roleAttributes', (r) => [`round-${r}`]],
      ['defaultHostingCost', (r) => r],
      ['defaultHostingPrecedence', (r) => ['default', 'required', 'failed'][r % 3]],
      ['externalId', (r) => `contended-${r}`],
    ];
    const [a, b, c] = nodes();
    for (let round = 1; round <= 15; round++) {
      // Each field changed by one PATCH; the PATCHes of a round go at once, half through a, half through b.
      const answers = await Promise.all(fields.map(([field, value], k) => (k % 2 === 0 ? a : b).mgmt.patch(`/identities/${id}`, { [field]: value(round) }, token)));
      answers.forEach((res, k) => assert.equal(res.status, 200, `round ${round}, PATCH ${fields[k][0]}: ${res.text}`));
      const got = (await c.mgmt.get(`/identities/${id}`, token)).body.data;
      for (const [field, value] of fields) {
        assert.deepEqual(got[field], value(round), `round ${round}: ${field} read on ${c.name} after concurrent PATCHes through ${a.name} and ${b.name}`);
      }
    }
  });

  it('an identity enrolled over the API logs in with its certificate through HAProxy, on every node', { timeout: 90_000 }, async () => {
    const [a, b] = nodes();
    const made = await a.mgmt.post('/identities', { name: 'cert-device', type: 'Device', isAdmin: false, enrollment: { ott: true } }, token);
    assert.equal(made.status, 201, made.text);
    const id: string = made.body.data.id;
    created.push(id);
    const detail = await b.mgmt.get(`/identities/${id}`, token);
    const ott = detail.body?.data?.enrollment?.ott;
    assert.ok(ott?.token, `the enrollment created on ${a.name} is read on ${b.name}: ${detail.text}`);

    const key = newKey('ec');
    const enrolled = await cluster.lbClient.post('/enroll/ott', { token: ott.token, clientCsr: createCsr(key, 'cert-device') });
    assert.equal(enrolled.status, 200, enrolled.text);
    const cert = new X509Certificate(enrolled.body.data.cert);
    assert.ok(cert.verify(new X509Certificate(cluster.caPem).publicKey), 'the client certificate is issued by the cluster CA');

    const clients = cluster.certClients({ certPem: enrolled.body.data.cert, keyPem: key.keyPem });
    try {
      const before = await cluster.balancer!.stats();
      const tokens: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await clients.client.post('/authenticate?method=cert', {});
        assert.equal(res.status, 200, `certificate login ${i + 1} through HAProxy: ${res.text}`);
        tokens.push(res.headers.get('zt-session')!);
      }
      const now = await cluster.balancer!.stats();
      for (const node of nodes()) {
        const got = (now.get(node.name)?.connections ?? 0) - (before.get(node.name)?.connections ?? 0);
        assert.ok(got >= 1, `${node.name} served ${got} of the 6 certificate logins`);
      }
      for (const node of nodes()) {
        const res = await node.client.get('/current-api-session', tokens[0]);
        assert.equal(res.status, 200, `the certificate session on ${node.name}: ${res.text}`);
        assert.equal(res.body.data.identityId, id);
      }
    } finally {
      await clients.close();
    }
  });

  it('a fourth, fresh node joins and reads every earlier write at once', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 20; i++) await createOn(cluster.lb, `before-n4-${i}`);
    const fourth = await cluster.addNode();
    assert.equal(readFileSync(fourth.caPath, 'utf8'), cluster.caPem, 'the new node has the cluster CA');
    const missing: string[] = [];
    for (const id of created) {
      const res = await fourth.mgmt.get(`/identities/${id}`, token);
      if (res.status !== 200) missing.push(`${id} → ${res.status}`);
    }
    assert.deepEqual(missing, [], `${missing.length} of ${created.length} earlier writes are missing on ${fourth.name}`);
    const own = await fourth.mgmt.post('/identities', { name: 'made-on-n4', type: 'User', isAdmin: false }, token);
    assert.equal(own.status, 201, own.text);
    for (const node of nodes()) {
      assert.equal((await node.mgmt.get(`/identities/${own.body.data.id}`, token)).status, 200, `created on ${fourth.name}, read on ${node.name}`);
    }
    await cluster.waitBalanced();
    assert.ok(await cluster.login(fourth.mgmt), 'the admin logs in on the new node');
  });
});
