// The protocol's list of kinds (written without importing domain code) is exactly the registry's,
// checked by the compiler and at run time; a received query naming another kind is refused.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESOURCES, type Kind } from '../../../src/domain/registry.js';
import { ApiError } from '../../../src/errors.js';
import { readMessage } from '../../../src/protocol/v1/handler-table.js';
import { KIND_NAMES, type KindName } from '../../../src/protocol/v1/kind-names.js';
import { QUERY_PROTOCOL } from '../../../src/protocol/v1/query-messages.js';

/** `true` only when A and B are the same union. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Fails to compile when a kind is added to one list and not the other.
const SAME_KINDS: Same<Kind, KindName> = true;

const invalidMessage = (field: string) => (err: unknown) =>
  err instanceof ApiError && err.code === 'INVALID_MESSAGE' && err.status === 400 && (err.apiCause as { field?: string } | undefined)?.field === field;

describe('protocol kind names', () => {
  it('are the kinds of the registry', () => {
    assert.equal(SAME_KINDS, true);
    assert.deepEqual([...KIND_NAMES].sort(), RESOURCES.map((r) => r.kind).sort());
  });

  it('refuses a query naming an unknown kind with 400 INVALID_MESSAGE', () => {
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'get', kind: 'widgets', id: 'x' }), invalidMessage('kind'));
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'list', kind: 42 }), invalidMessage('kind'));
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'related', parent: { kind: 'nope', id: 'p' }, kind: 'services' }), invalidMessage('kind'));
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'roleAttributes', kind: 'Identities' }), invalidMessage('kind'));
  });

  it('reads a query naming a declared kind', () => {
    assert.deepEqual(readMessage(QUERY_PROTOCOL, { op: 'get', kind: 'identities', id: 'x' }), { op: 'get', kind: 'identities', id: 'x', viewer: undefined });
  });
});
