// Unpaged lists (`limit=-1`) of the client API and of the config related lists stream from a
// list cursor like the management lists: the answer holds exactly the items paging gives, in the
// same order, with the bytes a whole `{data, meta}` would have (a route's own item shape too).
// An identity's service-config overrides (never paged) stream with the bytes of the list built whole.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NO_LIMIT_REPORTED } from '../../src/domain/paging.js';
import { API_META } from '../../src/gateway/envelope.js';
import { answerConfigQuery } from '../../src/query/config-queries.js';
import { ListCursors } from '../../src/query/list-cursors.js';
import type { ApiClient } from '../support/test-node.js';
import { startTestNode, type TestNode } from '../support/test-node.js';
import { makeSelfSigned } from '../support/test-pki.js';

/** More items than a page, so paging takes several requests. */
const SERVICES = 120;
const PAGE = 25;

let node: TestNode;
let user: { id: string; token: string };
const ids: Record<string, string> = {};
const services: string[] = [];

const admin = () => node.adminToken;

async function create(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post(path, body, admin());
  assert.equal(res.status, 201, `${path} ${res.text}`);
  return res.body.data.id as string;
}

/** Every item of a list, page by page (up to the pages' totalCount: a route may leave items
 * of a page out, as the client's external JWT signers do with disabled ones). */
async function paged(api: ApiClient, path: string, token: string): Promise<unknown[]> {
  const items: unknown[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let offset = 0; ; offset += PAGE) {
    const res = await api.get(`${path}${sep}limit=${PAGE}&offset=${offset}`, token);
    assert.equal(res.status, 200, res.text);
    items.push(...(res.body.data as unknown[]));
    if (offset + PAGE >= res.body.meta.pagination.totalCount) return items;
  }
}

/** The unpaged answer, checked against the exact text sendData writes for the paged items. */
async function assertStreamsAsPaged(api: ApiClient, path: string, token: string, minItems: number): Promise<void> {
  const expected = await paged(api, path, token);
  assert.ok(expected.length >= minItems, `${path}: only ${expected.length} items`);
  const sep = path.includes('?') ? '&' : '?';
  const first = await api.get(`${path}${sep}limit=1`, token);
  const res = await api.get(`${path}${sep}limit=-1`, token);
  assert.equal(res.status, 200, res.text);
  // A page is written whole (its length known up front); an unpaged list is streamed.
  assert.ok(first.headers.get('content-length'), `${path}: a page has a Content-Length`);
  assert.equal(res.headers.get('content-length'), null, `${path}: the unpaged answer is streamed`);
  const { filterableFields } = first.body.meta;
  const meta = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1', filterableFields, pagination: { limit: NO_LIMIT_REPORTED, offset: 0, totalCount: first.body.meta.pagination.totalCount } };
  const whole = JSON.stringify({ data: expected, meta }).replace(`"limit":"${NO_LIMIT_REPORTED}"`, `"limit":${NO_LIMIT_REPORTED}`);
  assert.equal(res.text, whole);
}

before(async () => {
  node = await startTestNode();
  user = await node.createUser('unpaged-client-user');
  const schema = { type: 'object', properties: { port: { type: 'integer' } } };
  ids.configType = await create('/config-types', { name: 'unpaged-type', schema });
  ids.config = await create('/configs', { name: 'unpaged-config-0', configTypeId: ids.configType, data: { port: 0 } });
  for (let i = 1; i < SERVICES; i++) await create('/configs', { name: `unpaged-config-${i}`, configTypeId: ids.configType, data: { port: i } });
  for (let i = 0; i < SERVICES; i++) {
    services.push(await create('/services', { name: `unpaged-svc-${String(i).padStart(3, '0')}`, encryptionRequired: true, roleAttributes: ['unpaged'], configs: [ids.config] }));
  }
  ids.service = services[0];
  await create('/service-policies', { name: 'unpaged-dial', type: 'Dial', semantic: 'AnyOf', identityRoles: [`@${user.id}`], serviceRoles: ['#unpaged'] });
  const router = await create('/edge-routers', { name: 'unpaged-er', roleAttributes: ['unpaged-er'] });
  await create('/edge-router-policies', { name: 'unpaged-erp', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#unpaged-er'] });
  await create('/service-edge-router-policies', { name: 'unpaged-serp', semantic: 'AnyOf', serviceRoles: ['#unpaged'], edgeRouterRoles: ['#unpaged-er'] });
  for (let i = 0; i < 30; i++) {
    const res = await node.client.post('/sessions', { serviceId: services[i], type: 'Dial' }, user.token);
    assert.equal(res.status, 201, res.text);
  }
  for (let i = 0; i < 30; i++) await create('/terminators', { service: ids.service, router, binding: 'edge', address: `hosted-${i}` });
  for (let i = 0; i < 30; i++) {
    const signer = { name: `unpaged-signer-${i}`, certPem: makeSelfSigned(`unpaged-${i}`).certPem, issuer: `https://issuer.example/unpaged-${i}`, audience: 'weft', enabled: i % 3 !== 0 };
    await create('/external-jwt-signers', signer);
  }
});
after(async () => {
  await node?.close();
});

describe('unpaged client API lists', () => {
  it('GET /services?limit=-1 answers the caller\'s services with their posture queries, as paging does', async () => {
    await assertStreamsAsPaged(node.client, '/services', user.token, SERVICES);
  });

  it('GET /services?limit=-1 with configTypes shows the config map, as paging does', async () => {
    await assertStreamsAsPaged(node.client, '/services?configTypes=all', user.token, SERVICES);
  });

  it('GET /sessions?limit=-1 answers the caller\'s sessions as paging does', async () => {
    await assertStreamsAsPaged(node.client, '/sessions', user.token, 30);
  });

  it('GET /services/{id}/terminators?limit=-1 answers the client view of every terminator', async () => {
    await assertStreamsAsPaged(node.client, `/services/${ids.service}/terminators`, user.token, 30);
  });

  it('GET /external-jwt-signers?limit=-1 (no session) answers the enabled signers as paging does', async () => {
    await assertStreamsAsPaged(node.client, '/external-jwt-signers', '', 15);
    const res = await node.client.get('/external-jwt-signers?limit=-1');
    assert.ok((res.body.data as { name: string }[]).every((s) => !s.name.endsWith('-0') && !s.name.endsWith('-3')));
  });

  it('GET /current-identity/authenticators?limit=-1 answers the caller\'s own', async () => {
    await assertStreamsAsPaged(node.client, '/current-identity/authenticators', user.token, 1);
  });
});

describe('client lists of edge routers (never paged)', () => {
  const FIELDS = ['id', 'createdAt', 'updatedAt', 'tags', '_links', 'name', 'hostname', 'supportedProtocols', 'syncStatus', 'isOnline', 'cost', 'noTraversal', 'disabled', 'appData'];
  const pick = (r: Record<string, unknown>) => Object.fromEntries(FIELDS.filter((f) => f in r).map((f) => [f, r[f]]));

  before(async () => {
    // More routers than one chunk of a small list; half of them serve the services too.
    for (let i = 0; i < 40; i++) await create('/edge-routers', { name: `unpaged-er-${String(i).padStart(2, '0')}`, roleAttributes: i % 2 ? ['unpaged-er'] : ['unpaged-er-only'] });
    await create('/edge-router-policies', { name: 'unpaged-erp-only', semantic: 'AnyOf', identityRoles: ['#all'], edgeRouterRoles: ['#unpaged-er-only'] });
  });

  it('GET /current-identity/edge-routers streams the bytes of the list built whole', async () => {
    const all = (await paged(node.mgmt, `/identities/${user.id}/edge-routers`, admin())) as Record<string, unknown>[];
    assert.ok(all.length > 40, `only ${all.length} routers`);
    const res = await node.client.get('/current-identity/edge-routers', user.token);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-length'), null, 'the list is streamed');
    const meta = { ...API_META, pagination: { limit: all.length, offset: 0, totalCount: all.length } };
    assert.equal(res.text, JSON.stringify({ data: all.map(pick), meta }));
  });

  it('GET /services/{id}/edge-routers streams the routers both the caller and the service may use', async () => {
    const mine = new Set(((await paged(node.mgmt, `/identities/${user.id}/edge-routers`, admin())) as { id: string }[]).map((r) => r.id));
    const serving = (await paged(node.mgmt, `/services/${ids.service}/edge-routers`, admin())) as Record<string, unknown>[];
    const both = serving.filter((r) => mine.has(r.id as string));
    assert.ok(both.length > 10 && both.length < mine.size, `${both.length} of ${mine.size}`);
    const res = await node.client.get(`/services/${ids.service}/edge-routers`, user.token);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-length'), null, 'the list is streamed');
    assert.equal(res.text, JSON.stringify({ data: { edgeRouters: both.map(pick) }, meta: API_META }));
  });
});

describe('unpaged config related lists', () => {
  it('GET /config-types/{id}/configs?limit=-1 answers what paging gives', async () => {
    await assertStreamsAsPaged(node.mgmt, `/config-types/${ids.configType}/configs`, admin(), SERVICES);
  });

  it('GET /configs/{id}/services?limit=-1 answers what paging gives', async () => {
    await assertStreamsAsPaged(node.mgmt, `/configs/${ids.config}/services`, admin(), SERVICES);
  });

  it('GET /services/{id}/configs?limit=-1 answers what paging gives', async () => {
    await assertStreamsAsPaged(node.mgmt, `/services/${ids.service}/configs`, admin(), 1);
  });

  it('GET /identities/{id}/service-configs streams the bytes of the list built whole', async () => {
    const otherType = await create('/config-types', { name: 'unpaged-other-type' });
    const otherConfig = await create('/configs', { name: 'unpaged-other-config', configTypeId: otherType, data: {} });
    const configs = (await paged(node.mgmt, `/config-types/${ids.configType}/configs`, admin())) as { id: string }[];
    const pairs = services.flatMap((serviceId, i) => [
      { serviceId, configId: configs[i].id },
      { serviceId, configId: otherConfig },
    ]);
    const path = `/identities/${user.id}/service-configs`;
    assert.equal((await node.mgmt.post(path, pairs, admin())).status, 200);

    const res = await node.mgmt.get(path, admin());
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('content-length'), null, 'the list is streamed');
    // The same query asked without `stream` on the node's replica: the list built whole.
    const msg = { op: 'configQuery' as const, query: 'identityServiceConfigs' as const, id: user.id };
    const built = (await answerConfigQuery(msg, { replica: node.handle.replica, list: () => Promise.reject(new Error('unused')), stream: false, openCursor: () => '' })) as {
      data: { serviceId: string; configId: string }[];
      meta: Record<string, unknown>;
    };
    assert.equal(built.data.length, pairs.length);
    const order = (a: { serviceId: string; configId: string }, b: typeof a) => a.serviceId.localeCompare(b.serviceId) || a.configId.localeCompare(b.configId);
    assert.deepEqual(
      built.data.map((p) => ({ serviceId: p.serviceId, configId: p.configId })),
      [...pairs].sort(order),
    );
    const whole = JSON.stringify({ data: built.data, meta: { ...API_META, ...built.meta } }).replace(`"limit":"${NO_LIMIT_REPORTED}"`, `"limit":${NO_LIMIT_REPORTED}`);
    assert.equal(res.text, whole);

    // Pulled in small chunks (many pulls), the cursor yields the same items.
    const cursors = new ListCursors({ chunkChars: 2_000 });
    const opened = (await answerConfigQuery(msg, { replica: node.handle.replica, list: () => Promise.reject(new Error('unused')), stream: true, openCursor: (source) => cursors.open(source, async (items) => items, 0) })) as { cursor: string };
    const chunks: string[] = [];
    for (;;) {
      const chunk = await cursors.next(opened.cursor);
      if (chunk.items !== '') chunks.push(chunk.items);
      if (chunk.done) {
        assert.equal(chunk.total, pairs.length);
        break;
      }
    }
    assert.ok(chunks.length > 1, `only ${chunks.length} chunk`); // a pull answers after a presented batch over chunkChars
    assert.equal(`[${chunks.join(',')}]`, JSON.stringify(built.data));
    assert.equal(cursors.size, 0);
  });

  it('an invalid filter on an unpaged client list is a 400 before any answer starts', async () => {
    const res = await node.client.get(`/services?filter=${encodeURIComponent('nope = 1')}&limit=-1`, user.token);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'INVALID_FILTER');
  });
});
