// validateBody derived from declarations: required fields on create/replace, patch as the set
// of present fields, defaults, dropped server/ignored fields, secrets never echoed, types,
// enums, ranges, maps and tags. One rule per test: exact code and cause.field.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authenticators } from '../../../src/domain/resources/authenticators.js';
import { identities } from '../../../src/domain/resources/identities.js';
import { MAX_INTEGER, MAX_LIST_ITEMS, validateBody } from '../../../src/domain/validate.js';
import { ApiError, type FieldCause } from '../../../src/errors.js';
import type { ResourceDecl } from '../../../src/domain/resource.js';

const IDENTITY = { name: 'alice', type: 'User', isAdmin: false };
const AUTHENTICATOR = { method: 'updb', identityId: 'id1', username: 'alice', password: 'secret-pw' };

/** Asserts the body is refused with COULD_NOT_VALIDATE on `field`; returns the cause. */
function refused(decl: ResourceDecl, body: unknown, mode: 'create' | 'replace' | 'patch', field: string): FieldCause {
  let cause: FieldCause | undefined;
  assert.throws(
    () => validateBody(decl, body, mode),
    (err: unknown) => {
      assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
      assert.equal(err.code, 'COULD_NOT_VALIDATE');
      assert.equal(err.status, 400);
      cause = err.apiCause as FieldCause;
      assert.equal(cause.field, field, JSON.stringify(cause));
      return true;
    },
  );
  return cause!;
}

describe('validateBody required fields (identities create)', () => {
  it('requires name', () => {
    const cause = refused(identities, { type: 'User', isAdmin: false }, 'create', 'name');
    assert.equal(cause.reason, 'name is required');
  });

  it('requires type', () => {
    refused(identities, { name: 'alice', isAdmin: false }, 'create', 'type');
  });

  it('requires isAdmin', () => {
    refused(identities, { name: 'alice', type: 'User' }, 'create', 'isAdmin');
  });

  it('treats null for a required field as missing', () => {
    refused(identities, { ...IDENTITY, isAdmin: null }, 'create', 'isAdmin');
  });

  it('requires the same fields on replace', () => {
    refused(identities, { type: 'User', isAdmin: true }, 'replace', 'name');
  });

  it('rejects a body that is not an object with field body', () => {
    refused(identities, [IDENTITY], 'create', 'body');
    refused(identities, 'text', 'create', 'body');
    refused(identities, null, 'patch', 'body');
  });
});

describe('validateBody patch', () => {
  it('returns only the fields present', () => {
    assert.deepEqual(validateBody(identities, { name: 'bob' }, 'patch'), { name: 'bob' });
    assert.deepEqual(validateBody(identities, { isAdmin: true, roleAttributes: ['a'] }, 'patch'), { isAdmin: true, roleAttributes: ['a'] });
  });

  it('accepts an empty patch and fills no defaults', () => {
    assert.deepEqual(validateBody(identities, {}, 'patch'), {});
  });

  it('still validates the fields present', () => {
    refused(identities, { isAdmin: 'yes' }, 'patch', 'isAdmin');
  });

  it('refuses null for a required field', () => {
    refused(identities, { name: null }, 'patch', 'name');
  });

  it('drops create-only fields', () => {
    assert.deepEqual(validateBody(identities, { enrollment: { ott: true }, name: 'x' }, 'patch'), { name: 'x' });
    assert.deepEqual(validateBody(authenticators, { method: 'cert', identityId: 'other', username: 'newname' }, 'patch'), { username: 'newname' });
  });
});

describe('validateBody defaults and dropped fields', () => {
  it('fills the declared defaults on create', () => {
    assert.deepEqual(validateBody(identities, IDENTITY, 'create'), {
      ...IDENTITY,
      tags: {},
      roleAttributes: [],
      authPolicyId: 'default',
      externalId: null,
      defaultHostingCost: 0,
      defaultHostingPrecedence: 'default',
      serviceHostingCosts: {},
      serviceHostingPrecedences: {},
      appData: {},
      permissions: [],
    });
  });

  it('gives each body its own copy of a default', () => {
    const a = validateBody(identities, IDENTITY, 'create');
    (a.roleAttributes as string[]).push('mutated');
    assert.deepEqual(validateBody(identities, IDENTITY, 'create').roleAttributes, []);
  });

  it('keeps client values over defaults', () => {
    const out = validateBody(identities, { ...IDENTITY, roleAttributes: ['r'], authPolicyId: null, tags: { k: 'v' } }, 'create');
    assert.deepEqual(out.roleAttributes, ['r']);
    assert.equal(out.authPolicyId, null);
    assert.deepEqual(out.tags, { k: 'v' });
  });

  it('drops server and ignored fields (isDefaultAdmin, id, typeId, createdAt, disabledAt)', () => {
    const body = { ...IDENTITY, isDefaultAdmin: true, id: 'chosen', typeId: 'Router', createdAt: '2020-01-01T00:00:00Z', disabledAt: null, envInfo: {} };
    const out = validateBody(identities, body, 'create');
    for (const key of ['isDefaultAdmin', 'id', 'typeId', 'createdAt', 'disabledAt', 'envInfo']) assert.ok(!(key in out), key);
  });

  it('ignores unknown properties', () => {
    const out = validateBody(identities, { ...IDENTITY, favouriteColour: 'blue' }, 'create');
    assert.ok(!('favouriteColour' in out));
  });

  it('does not store the server-written authenticator fields from a body', () => {
    const out = validateBody(authenticators, { ...AUTHENTICATOR, passwordHash: 'x', salt: 'y', fingerprint: 'z' }, 'create');
    assert.deepEqual(out, { ...AUTHENTICATOR, tags: {} });
  });
});

describe('validateBody types', () => {
  it('rejects a non-string name', () => {
    const cause = refused(identities, { ...IDENTITY, name: 5 }, 'create', 'name');
    assert.equal(cause.reason, 'name in body must be of type string');
    assert.equal(cause.value, 5);
  });

  it('rejects a non-boolean isAdmin', () => {
    refused(identities, { ...IDENTITY, isAdmin: 'false' }, 'create', 'isAdmin');
  });

  it('rejects an empty name', () => {
    refused(identities, { ...IDENTITY, name: '' }, 'create', 'name');
  });

  it('counts name length in characters, not UTF-16 units', () => {
    assert.equal(validateBody(identities, { ...IDENTITY, name: '😀'.repeat(1024) }, 'create').name, '😀'.repeat(1024));
    refused(identities, { ...IDENTITY, name: 'a'.repeat(1025) }, 'create', 'name');
  });

  it('rejects a name that is not well-formed Unicode (lone surrogate)', () => {
    refused(identities, { ...IDENTITY, name: 'bad\ud800name' }, 'create', 'name');
  });

  it('rejects roleAttributes that are not an array', () => {
    refused(identities, { ...IDENTITY, roleAttributes: 'sales' }, 'create', 'roleAttributes');
  });

  it('rejects a non-string role attribute with its index in the path', () => {
    refused(identities, { ...IDENTITY, roleAttributes: ['ok', 7] }, 'create', 'roleAttributes[1]');
  });

  it('rejects a type outside the enum', () => {
    const cause = refused(identities, { ...IDENTITY, type: 'Robot' }, 'create', 'type');
    assert.equal(cause.reason, 'type must be one of User, Device, Service, Router, Default');
  });

  it('accepts every identity type of the enum', () => {
    for (const type of ['User', 'Device', 'Service', 'Router', 'Default']) {
      assert.equal(validateBody(identities, { ...IDENTITY, type }, 'create').type, type);
    }
  });

  it('rejects a defaultHostingPrecedence outside the enum', () => {
    refused(identities, { ...IDENTITY, defaultHostingPrecedence: 'sometimes' }, 'create', 'defaultHostingPrecedence');
  });
});

describe('validateBody integer ranges', () => {
  it('accepts defaultHostingCost 0 and 65535', () => {
    assert.equal(validateBody(identities, { defaultHostingCost: 0 }, 'patch').defaultHostingCost, 0);
    assert.equal(validateBody(identities, { defaultHostingCost: 65535 }, 'patch').defaultHostingCost, 65535);
  });

  it('rejects defaultHostingCost 65536', () => {
    const cause = refused(identities, { defaultHostingCost: 65536 }, 'patch', 'defaultHostingCost');
    assert.equal(cause.reason, 'defaultHostingCost should be less than or equal to 65535');
  });

  it('rejects defaultHostingCost -1', () => {
    refused(identities, { defaultHostingCost: -1 }, 'patch', 'defaultHostingCost');
  });

  it('rejects a fractional defaultHostingCost', () => {
    refused(identities, { defaultHostingCost: 1.5 }, 'patch', 'defaultHostingCost');
  });

  it('rejects a numeric string defaultHostingCost', () => {
    refused(identities, { defaultHostingCost: '10' }, 'patch', 'defaultHostingCost');
  });

  it('checks every serviceHostingCosts value with its key in the path', () => {
    assert.deepEqual(validateBody(identities, { serviceHostingCosts: { a: 1, b: 65535 } }, 'patch'), { serviceHostingCosts: { a: 1, b: 65535 } });
    refused(identities, { serviceHostingCosts: { a: 1, svc: 70000 } }, 'patch', 'serviceHostingCosts.svc');
  });

  it('checks every serviceHostingPrecedences value against the enum', () => {
    refused(identities, { serviceHostingPrecedences: { svc: 'bogus' } }, 'patch', 'serviceHostingPrecedences.svc');
  });
});

describe('validateBody tags', () => {
  it('accepts string, number, boolean and null tag values', () => {
    const tags = { s: 'x', n: 1.5, b: true, z: null };
    assert.deepEqual(validateBody(identities, { tags }, 'patch'), { tags });
  });

  it('accepts null tags', () => {
    assert.deepEqual(validateBody(identities, { tags: null }, 'patch'), { tags: null });
  });

  it('rejects an object tag value with the tag in the path', () => {
    refused(identities, { tags: { nested: { a: 1 } } }, 'patch', 'tags.nested');
  });

  it('rejects an array tag value', () => {
    refused(identities, { tags: { list: [1] } }, 'patch', 'tags.list');
  });

  it('rejects tags that are not an object', () => {
    refused(identities, { tags: ['a'] }, 'patch', 'tags');
    refused(identities, { appData: 'text' }, 'patch', 'appData');
  });
});

describe('validateBody nested objects', () => {
  it('keeps declared enrollment properties and drops unknown ones', () => {
    const out = validateBody(identities, { ...IDENTITY, enrollment: { ott: true, bogus: 1 } }, 'create');
    assert.deepEqual(out.enrollment, { ott: true });
  });

  it('checks enrollment properties with their path', () => {
    refused(identities, { ...IDENTITY, enrollment: { updb: 'abc' } }, 'create', 'enrollment.updb');
    refused(identities, { ...IDENTITY, enrollment: { ott: 'yes' } }, 'create', 'enrollment.ott');
  });
});

describe('validateBody secrets (authenticators)', () => {
  it('accepts a valid updb authenticator', () => {
    assert.deepEqual(validateBody(authenticators, AUTHENTICATOR, 'create'), { ...AUTHENTICATOR, tags: {} });
  });

  it('rejects a too short password without echoing it', () => {
    const cause = refused(authenticators, { ...AUTHENTICATOR, password: 'abc' }, 'create', 'password');
    assert.equal(cause.value, '******');
    assert.match(cause.reason, /at least 5/);
    assert.ok(!cause.reason.includes('abc'));
  });

  it('rejects a too long password without echoing it', () => {
    const cause = refused(authenticators, { ...AUTHENTICATOR, password: 'p'.repeat(101) }, 'create', 'password');
    assert.equal(cause.value, '******');
  });

  it('rejects a non-string password without echoing it', () => {
    const cause = refused(authenticators, { ...AUTHENTICATOR, password: 123456 }, 'create', 'password');
    assert.equal(cause.value, '******');
  });

  it('echoes a non-secret value (username) in the cause', () => {
    const cause = refused(authenticators, { ...AUTHENTICATOR, username: 'abc' }, 'create', 'username');
    assert.equal(cause.value, 'abc');
  });

  it('rejects a method outside updb/cert', () => {
    refused(authenticators, { ...AUTHENTICATOR, method: 'token' }, 'create', 'method');
  });

  it('requires username on replace', () => {
    refused(authenticators, { password: 'secret-pw' }, 'replace', 'username');
  });

  it('requires password on replace', () => {
    refused(authenticators, { username: 'alice' }, 'replace', 'password');
  });

  it('treats a null password on replace as missing', () => {
    const cause = refused(authenticators, { username: 'alice', password: null }, 'replace', 'password');
    assert.equal(cause.value, '******');
  });

  it('treats a null username on replace as missing', () => {
    refused(authenticators, { username: null, password: 'secret-pw' }, 'replace', 'username');
  });

  it('does not require username or password on create', () => {
    assert.deepEqual(validateBody(authenticators, { method: 'cert', identityId: 'id1' }, 'create'), { method: 'cert', identityId: 'id1', tags: {} });
  });
});

describe('validateBody caps', () => {
  const services = { kind: 'services', fields: { maxIdleTimeMillis: { type: 'integer', min: 0 }, count: { type: 'integer' } }, ops: {} } as unknown as ResourceDecl;

  it(`accepts ${MAX_LIST_ITEMS} role attributes and refuses one more, naming the field and the cap without echoing the list`, () => {
    const full = Array.from({ length: MAX_LIST_ITEMS }, (_, i) => `a${i}`);
    assert.equal((validateBody(identities, { ...IDENTITY, roleAttributes: full }, 'create').roleAttributes as string[]).length, MAX_LIST_ITEMS);
    const cause = refused(identities, { ...IDENTITY, roleAttributes: [...full, 'one-more'] }, 'create', 'roleAttributes');
    assert.equal(cause.reason, `roleAttributes has ${MAX_LIST_ITEMS + 1} items; the cap is ${MAX_LIST_ITEMS}`);
    assert.equal(cause.value, `${MAX_LIST_ITEMS + 1} items`);
  });

  it(`refuses tags with more than ${MAX_LIST_ITEMS} entries`, () => {
    const tags = Object.fromEntries(Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => [`k${i}`, i]));
    refused(identities, { ...IDENTITY, tags }, 'create', 'tags');
  });

  it('refuses 1e300 in an integer field with a range of its own, and beyond the exact doubles in one without', () => {
    assert.match(refused(services, { maxIdleTimeMillis: 1e300 }, 'patch', 'maxIdleTimeMillis').reason, /the cap/);
    refused(services, { count: -(MAX_INTEGER + 2) }, 'patch', 'count');
    assert.deepEqual(validateBody(services, { count: MAX_INTEGER }, 'patch'), { count: MAX_INTEGER });
  });
});
