// Posture response bodies: one shape per typeId, field errors with paths.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parsePostureResponse, parsePostureResponses } from '../../../../src/domain/posture/index.js';
import { ApiError } from '../../../../src/errors.js';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 'COULD_NOT_VALIDATE');
    return (err.apiCause as { field?: string }).field;
  }
  assert.fail('expected a validation error');
}

describe('parsePostureResponse', () => {
  it('reads each response type', () => {
    assert.deepEqual(parsePostureResponse({ id: 'c', typeId: 'OS', type: 'Windows', version: '10.0.19041' }), { id: 'c', typeId: 'OS', type: 'Windows', version: '10.0.19041', build: '' });
    assert.deepEqual(parsePostureResponse({ id: 'c', typeId: 'ENDPOINT_STATE', woken: true }), { id: 'c', typeId: 'ENDPOINT_STATE', woken: true, unlocked: false });
    assert.deepEqual(parsePostureResponse({ id: 'c', typeId: 'PROCESS', path: '/a', isRunning: true }), { id: 'c', typeId: 'PROCESS', path: '/a', isRunning: true, hash: '', signerFingerprints: [] });
  });

  it('refuses unknown types, missing fields and wrong types with the field path', () => {
    assert.equal(fieldOf(() => parsePostureResponse({ id: 'c', typeId: 'MFA' })), 'typeId');
    assert.equal(fieldOf(() => parsePostureResponse({ typeId: 'OS' })), 'id');
    assert.equal(fieldOf(() => parsePostureResponse({ id: 'c', typeId: 'MAC' })), 'macAddresses');
    assert.equal(fieldOf(() => parsePostureResponse({ id: 'c', typeId: 'DOMAIN', domain: 7 })), 'domain');
    assert.equal(fieldOf(() => parsePostureResponses([{ id: 'c', typeId: 'OS', type: 'Linux', version: '1.0.0' }, { id: 'c', typeId: 'OS' }])), '[1].type');
    assert.equal(fieldOf(() => parsePostureResponses({})), 'body');
  });
});
