// Posture checks over HTTP: CRUD per check type with the exact detail shapes, versions, the
// immutable typeId, filters, role attributes, the check-type catalogue and access (403 / 401).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type TestNode } from '../support/test-node.js';

const HASH = 'ab'.repeat(32);
const BASE_KEYS = ['_links', 'createdAt', 'id', 'name', 'roleAttributes', 'tags', 'typeId', 'updatedAt', 'version'];

let node: TestNode;
let user: { id: string; token: string };
let seq = 0;

before(async () => {
  node = await startTestNode();
  user = await node.createUser('posture-non-admin');
});
after(async () => {
  await node?.close();
});

const admin = () => node.adminToken;
const unique = (prefix: string) => `${prefix}-${++seq}`;

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await node.mgmt.post('/posture-checks', body, admin());
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data._links.self.href, `./posture-checks/${res.body.data.id}`);
  return res.body.data.id as string;
}

async function read(id: string): Promise<Record<string, any>> {
  const res = await node.mgmt.get(`/posture-checks/${id}`, admin());
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

function assertFieldError(res: { status: number; body: any; text: string }, field: string): void {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
  assert.equal(res.body.error.cause.field, field);
}

/** The detail without the fields that vary per record. */
function shape(data: Record<string, any>): Record<string, unknown> {
  const { id, createdAt, updatedAt, _links, ...rest } = data;
  assert.equal(_links.self.href, `./posture-checks/${id}`);
  assert.ok(Date.parse(createdAt) > 0 && Date.parse(updatedAt) >= Date.parse(createdAt));
  return rest;
}

describe('POST /posture-checks and GET /posture-checks/:id', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'OS',
      { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }, { type: 'Linux', versions: ['>1.0.0 <2.0.0 || >=5.0.0'] }] },
      { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }, { type: 'Linux', versions: ['>1.0.0 <2.0.0 || >=5.0.0'] }] },
    ],
    ['MAC', { macAddresses: ['AA:BB:CC:00:11:22', 'aabb.cc00.1133'] }, { macAddresses: ['aabbcc001122', 'aabbcc001133'] }],
    ['DOMAIN', { domains: ['Corp.Example'] }, { domains: ['Corp.Example'] }],
    [
      'PROCESS',
      { process: { osType: 'Windows', path: 'C:\\agent.exe', hashes: [HASH], signerFingerprint: 'ff01' } },
      { process: { osType: 'Windows', path: 'C:\\agent.exe', hashes: [HASH], signerFingerprint: 'ff01' } },
    ],
    [
      'PROCESS_MULTI',
      { semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/usr/bin/agent', hashes: [HASH] }] },
      { semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/usr/bin/agent', hashes: [HASH], signerFingerprints: [] }] },
    ],
    [
      'MFA',
      { timeoutSeconds: 0, promptOnWake: true },
      { timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: false, ignoreLegacyEndpoints: false },
    ],
  ];
  for (const [typeId, typed, stored] of cases) {
    it(`creates a ${typeId} check and presents its detail shape`, async () => {
      const name = unique(`create-${typeId}`);
      const id = await create({ name, typeId, roleAttributes: ['pc-shape'], tags: { team: 'sec' }, ...typed });
      const data = await read(id);
      assert.deepEqual(shape(data), { name, typeId, roleAttributes: ['pc-shape'], tags: { team: 'sec' }, version: 1, ...stored });
      assert.deepEqual(Object.keys(data).sort(), [...BASE_KEYS, ...Object.keys(stored)].sort());
    });
  }

  it('defaults roleAttributes and tags', async () => {
    const data = await read(await create({ name: unique('defaults'), typeId: 'DOMAIN', domains: ['corp'] }));
    assert.deepEqual(data.roleAttributes, []);
    assert.deepEqual(data.tags, {});
  });

  it('accepts OneOf as a PROCESS_MULTI semantic and stores it as given', async () => {
    const data = await read(await create({ name: unique('oneof'), typeId: 'PROCESS_MULTI', semantic: 'OneOf', processes: [{ osType: 'macOS', path: '/a' }] }));
    assert.equal(data.semantic, 'OneOf');
  });

  it('requires typeId', async () => {
    assertFieldError(await node.mgmt.post('/posture-checks', { name: unique('no-type'), domains: ['x'] }, admin()), 'typeId');
  });

  it('rejects an unknown typeId', async () => {
    assertFieldError(await node.mgmt.post('/posture-checks', { name: unique('bad-type'), typeId: 'USB' }, admin()), 'typeId');
  });

  it('rejects an invalid version range on operatingSystems[<os>][<index>]', async () => {
    const body = { name: unique('bad-range'), typeId: 'OS', operatingSystems: [{ type: 'macOS', versions: ['>=11.0.0', 'eleven'] }] };
    assertFieldError(await node.mgmt.post('/posture-checks', body, admin()), 'operatingSystems[macOS][1]');
  });

  it('rejects a MAC address that is not 12 hex digits', async () => {
    assertFieldError(await node.mgmt.post('/posture-checks', { name: unique('bad-mac'), typeId: 'MAC', macAddresses: ['00:11'] }, admin()), 'macAddresses[0]');
  });

  it('rejects an empty domains list', async () => {
    assertFieldError(await node.mgmt.post('/posture-checks', { name: unique('no-domains'), typeId: 'DOMAIN', domains: [] }, admin()), 'domains');
  });

  it('rejects a process hash that is not SHA-256', async () => {
    const body = { name: unique('bad-hash'), typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '/a', hashes: ['abc'] }] };
    assertFieldError(await node.mgmt.post('/posture-checks', body, admin()), 'processes[0].hashes[0]');
  });

  it('rejects a role attribute prefixed with #', async () => {
    assertFieldError(await node.mgmt.post('/posture-checks', { name: unique('bad-attr'), typeId: 'MFA', roleAttributes: ['#x'] }, admin()), 'roleAttributes');
  });

  it('rejects a duplicate name', async () => {
    const name = unique('dup');
    await create({ name, typeId: 'MFA' });
    assertFieldError(await node.mgmt.post('/posture-checks', { name, typeId: 'MFA' }, admin()), 'name');
  });
});

describe('PATCH /posture-checks/:id', () => {
  it('increments version and changes only the fields present', async () => {
    const name = unique('patch');
    const id = await create({ name, typeId: 'MAC', macAddresses: ['001122334455'], roleAttributes: ['a'] });
    const res = await node.mgmt.patch(`/posture-checks/${id}`, { typeId: 'MAC', macAddresses: ['66-77-88-99-AA-BB'] }, admin());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, {});
    const data = await read(id);
    assert.equal(data.version, 2);
    assert.deepEqual(data.macAddresses, ['66778899aabb']);
    assert.equal(data.name, name);
    assert.deepEqual(data.roleAttributes, ['a']);
  });

  it('accepts a body without typeId', async () => {
    const id = await create({ name: unique('patch-no-type'), typeId: 'MFA', timeoutSeconds: 60 });
    assert.equal((await node.mgmt.patch(`/posture-checks/${id}`, { promptOnUnlock: true }, admin())).status, 200);
    const data = await read(id);
    assert.deepEqual([data.timeoutSeconds, data.promptOnUnlock, data.version], [60, true, 2]);
  });

  it('refuses to change typeId and leaves the check as it was', async () => {
    const id = await create({ name: unique('patch-type'), typeId: 'DOMAIN', domains: ['corp'] });
    assertFieldError(await node.mgmt.patch(`/posture-checks/${id}`, { typeId: 'MAC', macAddresses: ['001122334455'] }, admin()), 'typeId');
    const data = await read(id);
    assert.deepEqual([data.typeId, data.version, data.macAddresses], ['DOMAIN', 1, undefined]);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await node.mgmt.patch('/posture-checks/nope', { name: 'x' }, admin());
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });
});

describe('PUT /posture-checks/:id', () => {
  it('replaces the check, increments version and resets omitted optional fields', async () => {
    const id = await create({ name: unique('put'), typeId: 'MFA', timeoutSeconds: 300, promptOnWake: true, roleAttributes: ['x'] });
    const name = unique('put-renamed');
    const res = await node.mgmt.put(`/posture-checks/${id}`, { name, typeId: 'MFA', promptOnUnlock: true }, admin());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(shape(await read(id)), {
      name,
      typeId: 'MFA',
      roleAttributes: [],
      tags: {},
      version: 2,
      timeoutSeconds: -1,
      promptOnWake: false,
      promptOnUnlock: true,
      ignoreLegacyEndpoints: false,
    });
  });

  it('counts every write: PUT after PATCH is version 3', async () => {
    const id = await create({ name: unique('versions'), typeId: 'DOMAIN', domains: ['a'] });
    await node.mgmt.patch(`/posture-checks/${id}`, { domains: ['b'] }, admin());
    await node.mgmt.put(`/posture-checks/${id}`, { name: unique('versions-put'), domains: ['c'] }, admin());
    const data = await read(id);
    assert.deepEqual([data.version, data.domains], [3, ['c']]);
  });

  it('requires the typed fields of the stored type', async () => {
    const id = await create({ name: unique('put-missing'), typeId: 'OS', operatingSystems: [{ type: 'iOS', versions: [] }] });
    assertFieldError(await node.mgmt.put(`/posture-checks/${id}`, { name: unique('put-missing-2'), typeId: 'OS' }, admin()), 'operatingSystems');
  });

  it('refuses a different typeId', async () => {
    const id = await create({ name: unique('put-type'), typeId: 'OS', operatingSystems: [{ type: 'iOS', versions: [] }] });
    const body = { name: unique('put-type-2'), typeId: 'MFA' };
    assertFieldError(await node.mgmt.put(`/posture-checks/${id}`, body, admin()), 'typeId');
  });
});

describe('GET /posture-checks', () => {
  it('filters by typeId and reports the upstream filterable fields', async () => {
    const mac = await create({ name: unique('filter-mac'), typeId: 'MAC', macAddresses: ['0a0b0c0d0e0f'] });
    await create({ name: unique('filter-domain'), typeId: 'DOMAIN', domains: ['d'] });
    const res = await node.mgmt.get(`/posture-checks?limit=500&filter=${encodeURIComponent('typeId = "MAC"')}`, admin());
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.length > 0);
    assert.ok(res.body.data.every((c: { typeId: string }) => c.typeId === 'MAC'));
    assert.ok(res.body.data.some((c: { id: string }) => c.id === mac));
    assert.deepEqual(res.body.meta.filterableFields, ['createdAt', 'id', 'name', 'promptOnUnlock', 'promptOnWake', 'roleAttributes', 'typeId', 'updatedAt']);
  });

  it('filters MFA checks by promptOnWake', async () => {
    const id = await create({ name: unique('wake'), typeId: 'MFA', promptOnWake: true });
    const res = await node.mgmt.get(`/posture-checks?limit=500&filter=${encodeURIComponent('promptOnWake = true')}`, admin());
    assert.ok(res.body.data.some((c: { id: string }) => c.id === id));
    assert.ok(res.body.data.every((c: { promptOnWake: boolean }) => c.promptOnWake === true));
  });

  it('answers 401 to a non-admin', async () => {
    const res = await node.mgmt.get('/posture-checks', user.token);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });
});

describe('GET /posture-check-role-attributes', () => {
  it('lists the distinct role attributes of posture checks', async () => {
    await create({ name: unique('attrs-1'), typeId: 'MFA', roleAttributes: ['pc-attr-a', 'pc-attr-b'] });
    await create({ name: unique('attrs-2'), typeId: 'MFA', roleAttributes: ['pc-attr-b'] });
    const res = await node.mgmt.get(`/posture-check-role-attributes?filter=${encodeURIComponent('id contains "pc-attr-"')}`, admin());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, ['pc-attr-a', 'pc-attr-b']);
  });

  it('answers 401 to a non-admin', async () => {
    assert.equal((await node.mgmt.get('/posture-check-role-attributes', user.token)).status, 401);
  });
});

describe('GET /posture-check-types', () => {
  it('lists every check type in id order', async () => {
    const res = await node.mgmt.get('/posture-check-types', admin());
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.map((t: { id: string }) => t.id), ['DOMAIN', 'MAC', 'MFA', 'OS', 'PROCESS', 'PROCESS_MULTI']);
    assert.deepEqual(res.body.meta.pagination, { limit: 10, offset: 0, totalCount: 6 });
  });

  it('presents the OS type with its operating systems and versions', async () => {
    const res = await node.mgmt.get('/posture-check-types/OS', admin());
    assert.equal(res.status, 200, res.text);
    const { createdAt, updatedAt, ...rest } = res.body.data;
    assert.ok(Date.parse(createdAt) >= 0 && createdAt === updatedAt);
    assert.equal(rest.name, 'Operating System Check');
    assert.deepEqual(rest.operatingSystems.map((o: { type: string }) => o.type), ['Windows', 'Linux', 'Android', 'macOS', 'iOS']);
    assert.deepEqual(rest.operatingSystems[0].versions, ['Vista', '7', '8', '10', '2000']);
    assert.deepEqual(rest._links, { self: { href: './posture-check-types/OS' } });
    assert.deepEqual(Object.keys(rest).sort(), ['_links', 'id', 'name', 'operatingSystems', 'tags', 'version']);
  });

  it('filters types by name', async () => {
    const res = await node.mgmt.get(`/posture-check-types?filter=${encodeURIComponent('name contains "Process"')}`, admin());
    assert.deepEqual(res.body.data.map((t: { id: string }) => t.id), ['PROCESS', 'PROCESS_MULTI']);
  });

  it('answers 404 for an unknown type', async () => {
    const res = await node.mgmt.get('/posture-check-types/USB', admin());
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });

  it('answers 401 to a non-admin', async () => {
    assert.equal((await node.mgmt.get('/posture-check-types', user.token)).status, 401);
  });
});

describe('DELETE /posture-checks/:id', () => {
  it('answers 403 FORBIDDEN to a valid non-admin session and keeps the check', async () => {
    const id = await create({ name: unique('del-403'), typeId: 'MFA' });
    const res = await node.mgmt.delete(`/posture-checks/${id}`, user.token);
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'FORBIDDEN');
    assert.equal(res.body.data, undefined);
    await read(id);
  });

  it('answers 401 without a session', async () => {
    const id = await create({ name: unique('del-401'), typeId: 'MFA' });
    const res = await node.mgmt.delete(`/posture-checks/${id}`);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });

  it('deletes for an admin', async () => {
    const id = await create({ name: unique('del-ok'), typeId: 'MFA' });
    const res = await node.mgmt.delete(`/posture-checks/${id}`, admin());
    assert.equal(res.status, 200, res.text);
    assert.equal((await node.mgmt.get(`/posture-checks/${id}`, admin())).status, 404);
  });

  it('answers 404 to an admin for an unknown id', async () => {
    assert.equal((await node.mgmt.delete('/posture-checks/nope', admin())).status, 404);
  });
});
