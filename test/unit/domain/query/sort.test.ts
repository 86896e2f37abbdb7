// Unit tests for ZitiQL ordering: compareValues (nulls first, numeric, byte-wise, booleans,
// datetimes), sortComparator (directions, id tiebreak) and the sort query parameter.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { compareValues, parseSortParam, QueryError, sortComparator } from '../../../../src/domain/query/index.js';
import { symbols } from './fixtures.js';

type Row = Record<string, unknown>;
const field = (row: Row, name: string) => row[name];

describe('compareValues', () => {
  it('sorts null and undefined before everything', () => {
    assert.equal(compareValues(null, 0), -1);
    assert.equal(compareValues(undefined, ''), -1);
    assert.equal(compareValues('a', null), 1);
    assert.equal(compareValues(null, undefined), 0);
  });

  it('compares numbers numerically', () => {
    assert.equal(compareValues(2, 10), -1);
    assert.equal(compareValues(2.5, 2), 1);
    assert.equal(compareValues(3, 3), 0);
  });

  it('compares strings byte-wise', () => {
    assert.equal(compareValues('B', 'a'), -1);
    assert.equal(compareValues('a', 'ab'), -1);
    assert.equal(compareValues('\u{1F600}', '\uffff'), 1);
    assert.equal(compareValues('same', 'same'), 0);
  });

  it('orders false before true', () => {
    assert.equal(compareValues(false, true), -1);
    assert.equal(compareValues(true, true), 0);
  });

  it('compares datetimes chronologically across representations', () => {
    const early = new Date('2021-01-01T00:00:00Z');
    assert.equal(compareValues(early, new Date('2022-01-01T00:00:00Z')), -1);
    assert.equal(compareValues(early, '2020-12-31T23:00:00-01:00'), 0);
    assert.equal(compareValues(early, early.getTime() - 1), 1);
  });
});

describe('sortComparator', () => {
  const rows: Row[] = [
    { id: 'c', name: 'b', age: 2 },
    { id: 'a', name: null, age: 1 },
    { id: 'd', name: 'a', age: 2 },
    { id: 'b', name: 'b', age: 1 },
  ];

  const order = (sort: Parameters<typeof sortComparator>[0]) => [...rows].sort(sortComparator(sort, field)).map((r) => r.id);

  it('sorts ascending with nulls first', () => {
    assert.deepEqual(order([{ field: 'name', direction: 'asc' }]), ['a', 'd', 'b', 'c']);
  });

  it('sorts descending with nulls last and ids still ascending on ties', () => {
    assert.deepEqual(order([{ field: 'name', direction: 'desc' }]), ['b', 'c', 'd', 'a']);
  });

  it('uses later keys to break ties', () => {
    assert.deepEqual(order([{ field: 'age', direction: 'desc' }, { field: 'name', direction: 'asc' }]), ['d', 'c', 'a', 'b']);
  });

  it('orders by id when there are no sort keys', () => {
    assert.deepEqual(order([]), ['a', 'b', 'c', 'd']);
  });
});

describe('parseSortParam', () => {
  it('parses keys and directions', () => {
    assert.deepEqual(parseSortParam('name desc, createdAt', symbols), [
      { field: 'name', direction: 'desc' },
      { field: 'createdAt', direction: 'asc' },
    ]);
  });

  it('keeps at most five keys', () => {
    assert.equal(parseSortParam('name,age,score,isAdmin,createdAt,id', symbols).length, 5);
  });

  it('rejects an unknown field', () => {
    assert.throws(() => parseSortParam('foo', symbols), (err: unknown) => err instanceof QueryError && err.message === "unknown symbol 'foo'");
  });

  it('reports syntax errors at positions within `true sort by <param>`', () => {
    assert.throws(() => parseSortParam('name desc desc', symbols), { message: 'Unexpected symbol: "desc" at line: 1 column: 23' });
  });

  it('rejects a non-sortable field', () => {
    assert.throws(() => parseSortParam('secret asc', symbols), { message: "symbol 'secret' is not sortable" });
  });
});
