import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigSchemas } from '../../../src/actors/config-schemas.js';
import { BUILTIN_CONFIG_TYPES, isBuiltinConfigType } from '../../../src/domain/builtin-config-types.js';

describe('built-in config types', () => {
  it('every schema compiles', () => {
    const schemas = new ConfigSchemas();
    for (const type of BUILTIN_CONFIG_TYPES) assert.doesNotThrow(() => schemas.checkSchema(type.schema), type.name);
  });

  it('ids and names are unique and known as built-in', () => {
    assert.equal(new Set(BUILTIN_CONFIG_TYPES.map((t) => t.id)).size, BUILTIN_CONFIG_TYPES.length);
    assert.equal(new Set(BUILTIN_CONFIG_TYPES.map((t) => t.name)).size, BUILTIN_CONFIG_TYPES.length);
    for (const type of BUILTIN_CONFIG_TYPES) assert.ok(isBuiltinConfigType(type.id));
    assert.equal(isBuiltinConfigType('host.v3'), false);
  });

  it('host.v1 accepts a fixed address and port and refuses a missing port', () => {
    const schemas = new ConfigSchemas();
    const hostV1 = { id: 'NH5p4FpGR', updatedAt: 'x', schema: BUILTIN_CONFIG_TYPES.find((t) => t.name === 'host.v1')!.schema };
    assert.doesNotThrow(() => schemas.validate(hostV1 as never, { protocol: 'tcp', address: '10.0.0.1', port: 22 }));
    assert.throws(
      () => schemas.validate(hostV1 as never, { protocol: 'tcp', address: '10.0.0.1' }),
      (err: { apiCause?: { field?: string } }) => err.apiCause?.field === 'data.port',
    );
  });
});
