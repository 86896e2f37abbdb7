// Unit tests for ZitiQL semantic validation: set functions and subqueries, unknown symbols,
// set-symbol misuse and operand types per operator.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseQuery, QueryError, type Expr } from '../../../../src/domain/query/index.js';
import { symbols } from './fixtures.js';

function filterOf(text: string): Expr {
  const { filter } = parseQuery(text, symbols);
  assert.ok(filter);
  return filter;
}

function rejects(text: string, message: string): void {
  assert.throws(() => parseQuery(text, symbols), (err: unknown) => {
    assert.ok(err instanceof QueryError);
    assert.equal(err.message, message);
    return true;
  });
}

describe('ZitiQL set functions', () => {
  it('parses anyOf and allOf comparisons', () => {
    assert.deepEqual(filterOf('anyOf(roleAttributes) = "a"'), {
      kind: 'compare', lhs: { kind: 'anyOf', symbol: 'roleAttributes' }, op: '=', rhs: { type: 'string', value: 'a' },
    });
    assert.deepEqual(filterOf('ALLOF( roleAttributes ) contains "a"'), {
      kind: 'compare', lhs: { kind: 'allOf', symbol: 'roleAttributes' }, op: 'contains', rhs: { type: 'string', value: 'a' },
    });
  });

  it('parses count and isEmpty', () => {
    assert.deepEqual(filterOf('count(roleAttributes) >= 2'), {
      kind: 'compare', lhs: { kind: 'count', set: { kind: 'set', symbol: 'roleAttributes' } }, op: '>=', rhs: { type: 'number', value: 2, int: true },
    });
    assert.deepEqual(filterOf('isEmpty(roleAttributes)'), { kind: 'isEmpty', set: { kind: 'set', symbol: 'roleAttributes' } });
  });

  it('rejects whitespace between a set function and its parenthesis', () => {
    rejects('isEmpty (roleAttributes)', 'Unexpected symbol: " " at line: 1 column: 7');
  });

  it('requires an operator after anyOf(...)', () => {
    rejects('anyOf(roleAttributes)', 'Unexpected symbol: "<EOF>" at line: 1 column: 21');
  });

  it('rejects a set symbol used outside a set function', () => {
    rejects('roleAttributes = "a"', "symbol 'roleAttributes' is a set symbol but is used in non-set function context");
  });

  it('rejects a scalar symbol inside anyOf', () => {
    rejects('anyOf(name) = "a"', "symbol 'name' is not a set symbol but is used in set function anyOf");
  });

  it('rejects a scalar symbol inside isEmpty and count', () => {
    rejects('isEmpty(name)', "symbol 'name' is not a set symbol but is used in set function isEmpty");
    rejects('count(name) > 1', "symbol 'name' is not a set symbol but is used in set function count");
  });

  it('parses a subquery set expression', () => {
    assert.deepEqual(filterOf('not isEmpty(from edgeRouterPolicies where anyOf(identities) = "abc")'), {
      kind: 'not',
      arg: {
        kind: 'isEmpty',
        set: {
          kind: 'subquery',
          symbol: 'edgeRouterPolicies',
          query: {
            filter: { kind: 'compare', lhs: { kind: 'anyOf', symbol: 'identities' }, op: '=', rhs: { type: 'string', value: 'abc' } },
            sort: [],
          },
        },
      },
    });
  });

  it('parses sort, skip and limit inside a subquery', () => {
    const filter = filterOf('count(from edgeRouterPolicies where true sort by name desc skip 1 limit 2) = 1');
    assert.ok(filter.kind === 'compare' && filter.lhs.kind === 'count' && filter.lhs.set.kind === 'subquery');
    assert.deepEqual(filter.lhs.set.query, { filter: { kind: 'const', value: true }, sort: [{ field: 'name', direction: 'desc' }], skip: 1, limit: 2 });
  });

  it('resolves subquery symbols against the element entity', () => {
    rejects('isEmpty(from edgeRouterPolicies where age = 1)', "unknown symbol 'age'");
  });

  it('rejects a subquery on a symbol without entity symbols', () => {
    rejects('isEmpty(from roleAttributes where name = "a")', 'attempt to subquery on non-entity symbol roleAttributes');
  });
});

describe('ZitiQL symbol and type validation', () => {
  it('rejects an unknown symbol', () => {
    rejects('foo = 1', "unknown symbol 'foo'");
  });

  it('treats symbol names case-sensitively', () => {
    rejects('NAME = "a"', "unknown symbol 'NAME'");
  });

  it('reports an unknown symbol before an earlier type error', () => {
    rejects('name = 5 and foo = 1', "unknown symbol 'foo'");
  });

  it('rejects a string symbol compared with a number', () => {
    rejects('name = 5', 'operation name = 5 is not supported with operands types string, number');
  });

  it('rejects a number symbol compared with a string', () => {
    rejects('age < "5"', 'operation age < 5 is not supported with operands types number, string');
  });

  it('rejects a bool symbol compared with a number', () => {
    rejects('isAdmin = 1', 'operation isAdmin = 1 is not supported with operands types bool, number');
  });

  it('rejects a datetime symbol compared with a string', () => {
    rejects('createdAt = "2021"', 'operation createdAt = 2021 is not supported with operands types datetime, string');
  });

  it('rejects contains on a bool symbol', () => {
    rejects('isAdmin contains "t"', 'operation isAdmin contains t is not supported with operands types bool, string');
  });

  it('rejects in with an array of another type', () => {
    rejects('name in [1, 2]', 'operation name in [1, 2] is not supported with operands types string, number');
  });

  it('rejects between on a string symbol', () => {
    rejects('name between 1 and 2', 'operation between is not supported with operands types string, number, number');
  });

  it('rejects count compared with null', () => {
    rejects('count(roleAttributes) = null', 'operation count(roleAttributes) = null is not supported with operands types number, null');
  });

  it('compares an int symbol with a float literal', () => {
    assert.equal(filterOf('age = 2.5').kind, 'compare');
  });

  it('lets an any-typed symbol take the literal type', () => {
    assert.equal(filterOf('tags.location = "x" or tags.location = 5 or tags.location = true').kind, 'or');
  });

  it('checks anyOf operands against the element type', () => {
    rejects('anyOf(scores) = "a"', 'operation scores = a is not supported with operands types number, string');
  });
});
