// perDeclaration computes a function of a resource declaration once per declaration; fieldsOf
// and roleFields are built on it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resourceOf } from '../../../src/domain/registry.js';
import { fieldsOf, perDeclaration, roleFields } from '../../../src/domain/resource.js';

describe('perDeclaration', () => {
  it('computes once per declaration and answers the same value after', () => {
    let calls = 0;
    const names = perDeclaration((decl) => {
      calls++;
      return Object.keys(decl.fields);
    });
    const identities = resourceOf('identities');
    const services = resourceOf('services');
    assert.equal(names(identities), names(identities));
    assert.notEqual(names(identities), names(services));
    assert.equal(calls, 2);
  });

  it('gives fieldsOf the base fields and roleFields the role lists with their targets', () => {
    assert.ok('createdAt' in fieldsOf(resourceOf('identities')));
    assert.deepEqual(new Map(roleFields(resourceOf('service-policies'))), new Map([['identityRoles', 'identities'], ['serviceRoles', 'services'], ['postureCheckRoles', 'posture-checks']]));
    assert.deepEqual(roleFields(resourceOf('identities')), []);
  });
});
