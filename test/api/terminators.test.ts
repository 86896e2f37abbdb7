// Terminators (CRUD, filters, a service's terminators, cascades) on the management API, and the
// /fabric/v1 subset admin consoles read: routers, services, terminators, empty links and circuits.

import assert from 'node:assert/strict';
import { Agent } from 'undici';
import { after, before, describe, it } from 'node:test';
import { ApiClient, startTestNode, type TestNode } from '../support/test-node.js';

describe('terminators and /fabric/v1', () => {
  let node: TestNode;
  let fabric: ApiClient;
  let dispatcher: Agent;
  let serviceId: string;
  let routerId: string;
  let edgeRouterId: string;
  const created = (res: { status: number; text: string; body: any }): string => {
    assert.equal(res.status, 201, res.text);
    return res.body.data.id;
  };

  before(async () => {
    node = await startTestNode();
    dispatcher = new Agent({ connect: { ca: node.handle.caPem } });
    fabric = new ApiClient(`${node.handle.url}/fabric/v1`, dispatcher);
    const t = node.adminToken;
    serviceId = created(await node.mgmt.post('/services', { name: 'term-service', encryptionRequired: true }, t));
    routerId = created(await node.mgmt.post('/transit-routers', { name: 'term-transit' }, t));
    edgeRouterId = created(await node.mgmt.post('/edge-routers', { name: 'term-edge' }, t));
  });
  after(async () => {
    await node?.close();
    await dispatcher?.close();
  });

  it('creates, reads, patches and deletes a terminator with upstream defaults and refs', async () => {
    const t = node.adminToken;
    const id = created(await node.mgmt.post('/terminators', { service: serviceId, router: routerId, binding: 'transport', address: 'tcp:10.0.0.1:80' }, t));
    const read = await node.mgmt.get(`/terminators/${id}`, t);
    assert.equal(read.status, 200, read.text);
    const data = read.body.data;
    assert.equal(data.serviceId, serviceId);
    assert.equal(data.service.id, serviceId);
    assert.equal(data.service.name, 'term-service');
    assert.equal(data.routerId, routerId);
    assert.equal(data.router.name, 'term-transit');
    assert.equal(data.cost, 0);
    assert.equal(data.dynamicCost, 0);
    assert.equal(data.precedence, 'default');
    assert.equal(data.identity, '');
    assert.equal((await node.mgmt.patch(`/terminators/${id}`, { cost: 7, precedence: 'required' }, t)).status, 200);
    const patched = (await node.mgmt.get(`/terminators/${id}`, t)).body.data;
    assert.equal(patched.cost, 7);
    assert.equal(patched.precedence, 'required');
    assert.equal((await node.mgmt.delete(`/terminators/${id}`, t)).status, 200);
    assert.equal((await node.mgmt.get(`/terminators/${id}`, t)).status, 404);
  });

  it('accepts an edge router as the router', async () => {
    const id = created(await node.mgmt.post('/terminators', { service: serviceId, router: edgeRouterId, binding: 'edge', address: 'hosted' }, node.adminToken));
    assert.equal((await node.mgmt.get(`/terminators/${id}`, node.adminToken)).body.data.router.name, 'term-edge');
  });

  it('refuses an unknown service or router with 400 on the field', async () => {
    const noService = await node.mgmt.post('/terminators', { service: 'nope', router: routerId, binding: 'b', address: 'a' }, node.adminToken);
    assert.equal(noService.status, 400, noService.text);
    assert.equal(noService.body.error.cause.field, 'service');
    const noRouter = await node.mgmt.post('/terminators', { service: serviceId, router: 'nope', binding: 'b', address: 'a' }, node.adminToken);
    assert.equal(noRouter.status, 400, noRouter.text);
    assert.equal(noRouter.body.error.cause.field, 'router');
    const missing = await node.mgmt.post('/terminators', { service: serviceId, router: routerId, binding: 'b' }, node.adminToken);
    assert.equal(missing.body.error.cause.field, 'address');
  });

  it('filters terminators and lists a service\'s terminators', async () => {
    const t = node.adminToken;
    const other = created(await node.mgmt.post('/services', { name: 'term-other', encryptionRequired: true }, t));
    const mine = created(await node.mgmt.post('/terminators', { service: other, router: routerId, binding: 'transport', address: 'tcp:db:5432' }, t));
    const filtered = await node.mgmt.get(`/terminators?filter=${encodeURIComponent(`address = "tcp:db:5432"`)}`, t);
    assert.deepEqual(filtered.body.data.map((x: { id: string }) => x.id), [mine]);
    const related = await node.mgmt.get(`/services/${other}/terminators`, t);
    assert.equal(related.status, 200, related.text);
    assert.deepEqual(related.body.data.map((x: { id: string }) => x.id), [mine]);
  });

  it('deletes the terminators of a deleted service', async () => {
    const t = node.adminToken;
    const doomed = created(await node.mgmt.post('/services', { name: 'term-doomed', encryptionRequired: true }, t));
    const id = created(await node.mgmt.post('/terminators', { service: doomed, router: routerId, binding: 'transport', address: 'x' }, t));
    assert.equal((await node.mgmt.delete(`/services/${doomed}`, t)).status, 200);
    assert.equal((await node.mgmt.get(`/terminators/${id}`, t)).status, 404);
  });

  it('answers non-admins 401', async () => {
    const user = await node.createUser('term-user');
    assert.equal((await node.mgmt.get('/terminators', user.token)).status, 401);
    assert.equal((await fabric.get('/routers', user.token)).status, 401);
  });

  it('/fabric/v1/routers lists transit and edge routers with their count', async () => {
    const res = await fabric.get('/routers?limit=100', node.adminToken);
    assert.equal(res.status, 200, res.text);
    const names = res.body.data.map((r: { name: string }) => r.name);
    assert.ok(names.includes('term-transit') && names.includes('term-edge'), names.join());
    assert.equal(res.body.meta.pagination.totalCount, 2);
    for (const r of res.body.data) {
      assert.equal(typeof r.fingerprint, 'string');
      assert.equal(r.connected, false);
    }
    const one = await fabric.get(`/routers/${edgeRouterId}`, node.adminToken);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.data.name, 'term-edge');
    assert.equal((await fabric.get('/routers/nope', node.adminToken)).status, 404);
  });

  it('/fabric/v1 links and circuits are empty lists in the list envelope', async () => {
    for (const path of ['/links', '/circuits']) {
      const res = await fabric.get(path, node.adminToken);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, []);
      assert.equal(res.body.meta.pagination.totalCount, 0);
    }
  });

  it('/fabric/v1 services and terminators read the same entities', async () => {
    const services = await fabric.get('/services?limit=100', node.adminToken);
    assert.ok(services.body.data.some((s: { id: string }) => s.id === serviceId));
    assert.equal((await fabric.get(`/services/${serviceId}/`, node.adminToken)).body.data.name, 'term-service');
    const terminators = await fabric.get('/terminators', node.adminToken);
    assert.equal(terminators.status, 200, terminators.text);
    assert.ok(terminators.body.data.length >= 1);
  });
});
