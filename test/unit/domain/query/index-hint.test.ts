// Unit tests for extractIndexHint: which predicate of the top-level conjunction the query
// planner may use to narrow candidates through an index.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { extractIndexHint, parseQuery } from '../../../../src/domain/query/index.js';
import { symbols } from './fixtures.js';

const INDEXED = new Set(['name', 'age', 'createdAt', 'roleAttributes', 'isAdmin']);

function hintFor(filter: string) {
  return extractIndexHint(parseQuery(filter, symbols).filter, (f) => INDEXED.has(f));
}

describe('extractIndexHint', () => {
  it('returns undefined without a filter', () => {
    assert.equal(extractIndexHint(null, () => true), undefined);
  });

  it('uses field = literal', () => {
    assert.deepEqual(hintFor('name = "a"'), { field: 'name', kind: 'eq', values: ['a'] });
    assert.deepEqual(hintFor('isAdmin = true'), { field: 'isAdmin', kind: 'eq', values: [true] });
  });

  it('uses field in [..] with distinct values', () => {
    assert.deepEqual(hintFor('age in [1, 2, 1]'), { field: 'age', kind: 'eq', values: [1, 2] });
  });

  it('uses anyOf(set) = value on an indexed set field', () => {
    assert.deepEqual(hintFor('anyOf(roleAttributes) = "eu"'), { field: 'roleAttributes', kind: 'eq', values: ['eu'], set: true });
  });

  it('maps each range operator', () => {
    assert.deepEqual(hintFor('age < 5'), { field: 'age', kind: 'range', lt: 5 });
    assert.deepEqual(hintFor('age <= 5'), { field: 'age', kind: 'range', lte: 5 });
    assert.deepEqual(hintFor('age > 5'), { field: 'age', kind: 'range', gt: 5 });
    assert.deepEqual(hintFor('age >= 5'), { field: 'age', kind: 'range', gte: 5 });
    assert.deepEqual(hintFor('age between 1 and 5'), { field: 'age', kind: 'range', gte: 1, lt: 5 });
  });

  it('gives datetime bounds as Dates', () => {
    assert.deepEqual(hintFor('createdAt >= datetime(2021-01-01T00:00:00Z)'), {
      field: 'createdAt', kind: 'range', gte: new Date('2021-01-01T00:00:00Z'),
    });
  });

  it('merges ranges on the same field into the tightest bounds', () => {
    assert.deepEqual(hintFor('age > 1 and age >= 3 and age <= 9 and age < 9'), { field: 'age', kind: 'range', gte: 3, lt: 9 });
  });

  it('prefers equality over a range', () => {
    assert.deepEqual(hintFor('age > 1 and name = "a"'), { field: 'name', kind: 'eq', values: ['a'] });
  });

  it('prefers the equality with fewest values', () => {
    assert.deepEqual(hintFor('age in [1, 2] and name = "a"'), { field: 'name', kind: 'eq', values: ['a'] });
  });

  it('prefers a two-sided range over a one-sided one', () => {
    assert.deepEqual(hintFor('age > 1 and createdAt between datetime(2021-01-01T00:00:00Z) and datetime(2022-01-01T00:00:00Z)'), {
      field: 'createdAt', kind: 'range', gte: new Date('2021-01-01T00:00:00Z'), lt: new Date('2022-01-01T00:00:00Z'),
    });
  });

  it('looks through nested and groups', () => {
    assert.deepEqual(hintFor('isAdmin and (score > 1 and name = "a")'), { field: 'name', kind: 'eq', values: ['a'] });
  });

  it('ignores predicates under or and not', () => {
    assert.equal(hintFor('name = "a" or age = 1'), undefined);
    assert.equal(hintFor('not name = "a"'), undefined);
    assert.equal(hintFor('score > 1 and (name = "a" or age = 1)'), undefined);
  });

  it('ignores non-indexed fields and unusable operators', () => {
    assert.equal(hintFor('score = 1'), undefined);
    assert.equal(hintFor('name != "a"'), undefined);
    assert.equal(hintFor('name = null'), undefined);
    assert.equal(hintFor('name contains "a"'), undefined);
    assert.equal(hintFor('name not in ["a"]'), undefined);
    assert.equal(hintFor('age not between 1 and 2'), undefined);
    assert.equal(hintFor('allOf(roleAttributes) = "a"'), undefined);
    assert.equal(hintFor('count(roleAttributes) = 1'), undefined);
  });
});
