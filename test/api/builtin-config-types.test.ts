// Upstream's built-in config types exist on a fresh node under upstream's ids and names, accept
// the configs tunnelers and ZAC's Simple Service wizard write, and cannot be changed or deleted.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

const UPSTREAM = {
  'ziti-tunneler-client.v1': 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
  'ziti-tunneler-server.v1': 'cea49285-6c07-42cf-9f52-09a9b115c783',
  'intercept.v1': 'g7cIWbcGg',
  'host.v1': 'NH5p4FpGR',
  'host.v2': 'host.v2',
  'interfaces.v1': 'interfaces.v1',
  'host-interfaces.v1': 'host-interfaces.v1',
  'proxy.v1': 'proxy.v1',
};

describe('built-in config types', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node?.close();
  });

  it('lists upstream ids and names on a fresh node', async () => {
    const res = await node.mgmt.get('/config-types?limit=100', node.adminToken);
    assert.equal(res.status, 200, res.text);
    const byName = new Map(res.body.data.map((t: { name: string; id: string }) => [t.name, t.id]));
    for (const [name, id] of Object.entries(UPSTREAM)) assert.equal(byName.get(name), id, name);
  });

  it('reads intercept.v1 by id with its schema and target', async () => {
    const res = await node.mgmt.get('/config-types/g7cIWbcGg', node.adminToken);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'intercept.v1');
    assert.equal(res.body.data.target, 'service');
    assert.deepEqual(res.body.data.schema.required, ['protocols', 'addresses', 'portRanges']);
    assert.equal(res.body.data.schema.$id, 'http://edge.openziti.org/schemas/intercept.v1.config.json');
  });

  it("accepts the Simple Service wizard's intercept.v1 and host.v1 configs", async () => {
    const intercept = await node.mgmt.post('/configs', {
      name: 'wizard-intercept',
      configTypeId: 'g7cIWbcGg',
      data: { protocols: ['tcp', 'udp'], addresses: ['app.ziti'], portRanges: [{ low: 80, high: 443 }] },
    }, node.adminToken);
    assert.equal(intercept.status, 201, intercept.text);
    const host = await node.mgmt.post('/configs', {
      name: 'wizard-host',
      configTypeId: 'NH5p4FpGR',
      data: { address: 'localhost', port: 8080, forwardProtocol: true, allowedProtocols: ['tcp'] },
    }, node.adminToken);
    assert.equal(host.status, 201, host.text);
    const service = await node.mgmt.post('/services', { name: 'wizard-service', encryptionRequired: true, configs: [intercept.body.data.id, host.body.data.id] }, node.adminToken);
    assert.equal(service.status, 201, service.text);
  });

  it('validates against upstream schemas: host.v1 with forwardProtocol needs allowedProtocols', async () => {
    const res = await node.mgmt.post('/configs', { name: 'bad-host', configTypeId: 'NH5p4FpGR', data: { address: 'localhost', port: 80, forwardProtocol: true } }, node.adminToken);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    assert.equal(res.body.error.cause.field, 'data.allowedProtocols');
  });

  it('validates host.v2 terminators and intercept.v1 port ranges', async () => {
    const ok = await node.mgmt.post('/configs', { name: 'host-v2', configTypeId: 'host.v2', data: { terminators: [{ protocol: 'tcp', address: 'db', port: 5432 }] } }, node.adminToken);
    assert.equal(ok.status, 201, ok.text);
    const bad = await node.mgmt.post('/configs', { name: 'bad-intercept', configTypeId: 'g7cIWbcGg', data: { protocols: ['tcp'], addresses: ['a.ziti'], portRanges: [{ low: 1 }] } }, node.adminToken);
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.error.cause.field, /^data\.portRanges/);
  });

  it('refuses to delete a built-in config type', async () => {
    const res = await node.mgmt.delete('/config-types/proxy.v1', node.adminToken);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');
    assert.equal((await node.mgmt.get('/config-types/proxy.v1', node.adminToken)).status, 200);
  });

  it('refuses to patch or replace a built-in config type', async () => {
    const patched = await node.mgmt.patch('/config-types/host.v2', { name: 'renamed' }, node.adminToken);
    assert.equal(patched.status, 400, patched.text);
    assert.equal(patched.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
    const replaced = await node.mgmt.put('/config-types/host.v2', { name: 'host.v2', schema: {} }, node.adminToken);
    assert.equal(replaced.status, 400, replaced.text);
    assert.equal((await node.mgmt.get('/config-types/host.v2', node.adminToken)).body.data.name, 'host.v2');
  });

  it('refuses a new config type with a built-in name', async () => {
    const res = await node.mgmt.post('/config-types', { name: 'host.v1', schema: {} }, node.adminToken);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.cause.field, 'name');
  });
});
