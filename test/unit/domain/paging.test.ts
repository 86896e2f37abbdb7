// Paging rules of list endpoints (BEHAVIOR.md §1.5): query parameter parsing and how filter
// skip/limit, parameters, defaults and caps combine. One rule per test.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, NO_LIMIT_REPORTED, parsePagingParam, resolvePaging } from '../../../src/domain/paging.js';
import { ApiError, type FieldCause } from '../../../src/errors.js';

function invalidPagination(field: 'limit' | 'offset', value: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, 'INVALID_PAGINATION');
    assert.equal(err.status, 400);
    const cause = err.apiCause as FieldCause;
    assert.equal(cause.field, field);
    assert.equal(cause.value, value);
    assert.equal(cause.reason, `could not parse ${field}, value is not an integer`);
    return true;
  };
}

describe('parsePagingParam', () => {
  it('parses integers, negative ones included', () => {
    assert.equal(parsePagingParam('limit', '25'), 25);
    assert.equal(parsePagingParam('offset', '0'), 0);
    assert.equal(parsePagingParam('limit', '-1'), -1);
    assert.equal(parsePagingParam('offset', '-7'), -7);
  });

  it('treats an absent or empty parameter as unset', () => {
    assert.equal(parsePagingParam('limit', undefined), undefined);
    assert.equal(parsePagingParam('offset', ''), undefined);
  });

  it('rejects a non-integer limit with INVALID_PAGINATION and cause.field limit', () => {
    assert.throws(() => parsePagingParam('limit', 'ten'), invalidPagination('limit', 'ten'));
  });

  it('rejects a non-integer offset with INVALID_PAGINATION and cause.field offset', () => {
    assert.throws(() => parsePagingParam('offset', 'abc'), invalidPagination('offset', 'abc'));
  });

  it('rejects a decimal limit', () => {
    assert.throws(() => parsePagingParam('limit', '2.5'), invalidPagination('limit', '2.5'));
  });

  it('rejects an exponent or hex offset', () => {
    assert.throws(() => parsePagingParam('offset', '1e3'), invalidPagination('offset', '1e3'));
    assert.throws(() => parsePagingParam('offset', '0x10'), invalidPagination('offset', '0x10'));
  });
});

describe('resolvePaging', () => {
  it('defaults to limit 10 and offset 0', () => {
    assert.equal(DEFAULT_LIMIT, 10);
    assert.deepEqual(resolvePaging({}, {}), { offset: 0, limit: 10 });
  });

  it('uses the parameters when the filter sets nothing', () => {
    assert.deepEqual(resolvePaging({}, { limit: 25, offset: 40 }), { offset: 40, limit: 25 });
  });

  it('lets the filter limit win over the limit parameter', () => {
    assert.deepEqual(resolvePaging({ limit: 3 }, { limit: 50 }), { offset: 0, limit: 3 });
  });

  it('lets the filter skip win over the offset parameter', () => {
    assert.deepEqual(resolvePaging({ limit: undefined, skip: 5 }, { offset: 20 }), { offset: 5, limit: 10 });
  });

  it('fills only what the filter left unset from the parameters', () => {
    assert.deepEqual(resolvePaging({ limit: undefined, skip: 5 }, { limit: 30, offset: 99 }), { offset: 5, limit: 30 });
    assert.deepEqual(resolvePaging({ limit: 7 }, { limit: 30, offset: 99 }), { offset: 99, limit: 7 });
  });

  it('clamps a limit above 500 to 500 without an error', () => {
    assert.equal(MAX_LIMIT, 500);
    assert.deepEqual(resolvePaging({}, { limit: 501 }), { offset: 0, limit: 500 });
    assert.deepEqual(resolvePaging({ limit: 10_000 }, {}), { offset: 0, limit: 500 });
    assert.deepEqual(resolvePaging({}, { limit: 500 }), { offset: 0, limit: 500 });
  });

  it('clamps an offset above 100000 to 100000', () => {
    assert.equal(MAX_OFFSET, 100_000);
    assert.deepEqual(resolvePaging({}, { offset: 100_001 }), { offset: 100_000, limit: 10 });
    assert.deepEqual(resolvePaging({ limit: undefined, skip: 5_000_000 }, {}), { offset: 100_000, limit: 10 });
  });

  it('turns a negative offset into 0', () => {
    assert.deepEqual(resolvePaging({}, { offset: -5 }), { offset: 0, limit: 10 });
    assert.deepEqual(resolvePaging({ limit: undefined, skip: -1 }, {}), { offset: 0, limit: 10 });
  });

  it('turns limit 0 into the default 10', () => {
    assert.deepEqual(resolvePaging({}, { limit: 0 }), { offset: 0, limit: 10 });
    assert.deepEqual(resolvePaging({ limit: 0 }, { limit: 50 }), { offset: 0, limit: 10 });
  });

  it('turns a limit below -1 into the default 10', () => {
    assert.deepEqual(resolvePaging({}, { limit: -2 }), { offset: 0, limit: 10 });
    assert.deepEqual(resolvePaging({}, { limit: -500 }), { offset: 0, limit: 10 });
  });

  it("treats limit -1 as no limit ('none'), unclamped", () => {
    assert.deepEqual(resolvePaging({}, { limit: -1 }), { offset: 0, limit: 'none' });
  });

  it("treats the filter's limit none as no limit, over any limit parameter", () => {
    assert.deepEqual(resolvePaging({ limit: 'none' }, { limit: 20 }), { offset: 0, limit: 'none' });
    assert.deepEqual(resolvePaging({ limit: 'none', skip: 3 }, {}), { offset: 3, limit: 'none' });
  });

  it('gives the default limit when only an offset is passed', () => {
    assert.deepEqual(resolvePaging({}, { offset: 30 }), { offset: 30, limit: 10 });
  });

  it('reports no limit as 9223372036854775807', () => {
    assert.equal(NO_LIMIT_REPORTED, '9223372036854775807');
  });
});
