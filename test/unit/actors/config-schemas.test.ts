// Config-type schema patterns run on the linear-time regexp engine: a catastrophic-backtracking
// pattern is accepted and matches in linear time; what that engine cannot run is refused with 400.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigSchemas } from '../../../src/actors/config-schemas.js';
import { NOT_LINEAR } from '../../../src/actors/linear-regexp.js';
import { ApiError, type FieldCause } from '../../../src/errors.js';

const typeWith = (schema: Record<string, unknown>) => ({ id: `t-${JSON.stringify(schema)}`, createdAt: '', updatedAt: '1', tags: {}, schema });

function refusedSchema(schemas: ConfigSchemas, schema: Record<string, unknown>): FieldCause {
  let cause: FieldCause | undefined;
  assert.throws(() => schemas.checkSchema(schema), (err: unknown) => {
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 400);
    cause = err.apiCause as FieldCause;
    return true;
  });
  return cause!;
}

describe('ConfigSchemas patterns', () => {
  it('accepts ^(a+)+$ and matches a value that would backtrack for days in linear time', () => {
    const schemas = new ConfigSchemas();
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    schemas.checkSchema(schema);
    assert.throws(() => schemas.validate(typeWith(schema), { name: `${'a'.repeat(50)}!` }), (err: unknown) => {
      assert.equal((err as ApiError).code, 'COULD_NOT_VALIDATE');
      assert.equal(((err as ApiError).apiCause as FieldCause).field, 'data.name');
      return true;
    });
    schemas.validate(typeWith(schema), { name: 'a'.repeat(100_000) });
  });

  it('runs patternProperties on the same engine', () => {
    const schemas = new ConfigSchemas();
    const schema = { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } } };
    schemas.checkSchema(schema);
    schemas.validate(typeWith(schema), { [`${'x'.repeat(60)}`]: 'not checked: the key does not match' });
  });

  for (const [what, pattern] of [
    ['a backreference', '^(a+)\\1$'],
    ['a lookahead', '^(?=a)a+$'],
    ['a unicode property escape', '^\\p{L}+$'],
    ['a counted repetition over 16', '^[a-z]{1,63}$'],
  ]) {
    it(`refuses ${what} with 400 on the schema, naming the pattern`, () => {
      const cause = refusedSchema(new ConfigSchemas(), { type: 'string', pattern });
      assert.equal(cause.field, 'schema');
      assert.ok(cause.reason.includes(JSON.stringify(pattern)), cause.reason);
      assert.ok(cause.reason.includes(NOT_LINEAR), cause.reason);
    });
  }

  it('keeps ordinary patterns working', () => {
    const schemas = new ConfigSchemas();
    const schema = { type: 'string', pattern: '^[a-z0-9-]+(\\.[a-z0-9-]+)*$' };
    schemas.checkSchema(schema);
    schemas.validate(typeWith(schema), 'host.example.com');
    assert.throws(() => schemas.validate(typeWith(schema), 'Host!'), ApiError);
  });
});
