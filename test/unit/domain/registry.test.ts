// The declarations' hooks name only declared kinds and fields, and a kind's write and delete
// hooks are the ones generic code runs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declarationOf, isKind, kindOf, RESOURCES, resourceOf } from '../../../src/domain/registry.js';
import { RELATIONS } from '../../../src/domain/relations.js';
import { fieldsOf } from '../../../src/domain/resource.js';
import { guardDelete, LIST_REFERENCES } from '../../../src/domain/rules.js';
import { prepareWrite } from '../../../src/domain/write-rules.js';

describe('resource registry', () => {
  it('declares each kind once', () => {
    const kinds = RESOURCES.map((d) => d.kind);
    assert.equal(new Set(kinds).size, kinds.length);
  });

  it('looks up kinds named at run time and refuses unknown ones', () => {
    assert.equal(declarationOf('identities'), resourceOf('identities'));
    assert.equal(kindOf('posture-checks'), 'posture-checks');
    assert.equal(isKind('identitys'), false);
    assert.throws(() => declarationOf('identitys'), /unknown resource kind identitys/);
  });

  it('cascades name declared kinds and their indexed fields', () => {
    for (const decl of RESOURCES) {
      for (const cascade of decl.cascades ?? []) {
        assert.ok(isKind(cascade.target), `${decl.kind} cascades to ${cascade.target}`);
        const spec = fieldsOf(declarationOf(cascade.target))[cascade.field];
        assert.ok(spec && (spec.indexed || spec.unique), `${cascade.target}.${cascade.field} is indexed`);
      }
    }
  });

  it('relations and list references name declared kinds and fields', () => {
    for (const r of RELATIONS) {
      assert.ok(isKind(r.parent) && isKind(r.child), `${r.parent} -> ${r.child}`);
      if ('through' in r.via) assert.ok(isKind(r.via.through), r.via.through);
      if ('index' in r.via) assert.ok(fieldsOf(declarationOf(r.child))[r.via.index], `${r.child}.${r.via.index}`);
    }
    for (const ref of LIST_REFERENCES) {
      assert.ok(isKind(ref.kind) && fieldsOf(declarationOf(ref.from))[ref.field], `${ref.from}.${ref.field}`);
    }
  });

  it('columns name declared fields', () => {
    // Presented-only fields a kind's wire shape adds (not declared as fields).
    const presented: Record<string, string[]> = { identities: ['type'], 'edge-routers': ['isOnline'], routers: ['isOnline'] };
    for (const decl of RESOURCES) {
      for (const column of decl.columns ?? []) {
        assert.ok(fieldsOf(decl)[column] || presented[decl.kind]?.includes(column), `${decl.kind} column ${column}`);
      }
    }
  });

  it('runs the prepare hook, then the selectable check', () => {
    const values: Record<string, unknown> = { type: 'User', roleAttributes: ['ok'] };
    prepareWrite(resourceOf('identities'), values, undefined, 'create');
    assert.equal(values.typeId, 'Default');
    assert.equal('type' in values, false);
    assert.throws(() => prepareWrite(resourceOf('services'), { roleAttributes: ['#all'] }, undefined, 'create'), (e: { code?: string }) => e.code === 'COULD_NOT_VALIDATE');
  });

  it('refuses a guarded delete unless the delete is a system one', () => {
    const admin = { id: 'a', createdAt: '', updatedAt: '', tags: {}, isDefaultAdmin: true };
    assert.throws(() => guardDelete('identities', admin), (e: { code?: string }) => e.code === 'ENTITY_CAN_NOT_BE_DELETED');
    guardDelete('identities', admin, true);
    assert.throws(() => guardDelete('auth-policies', { ...admin, id: 'default' }), (e: { code?: string }) => e.code === 'CAN_NOT_DELETE_REFERENCED_ENTITY');
  });
});
