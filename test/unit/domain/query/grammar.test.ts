// Unit tests for the ZitiQL grammar: operators, precedence, whitespace rules, case-insensitive
// keywords and the sort/skip/limit clauses.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseQuery, QueryError, type Expr } from '../../../../src/domain/query/index.js';
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

const name = { kind: 'symbol', symbol: 'name' } as const;
const age = { kind: 'symbol', symbol: 'age' } as const;
const isAdmin: Expr = { kind: 'boolSymbol', symbol: 'isAdmin' };
const nameIsA: Expr = { kind: 'compare', lhs: name, op: '=', rhs: { type: 'string', value: 'a' } };
const ageIs1: Expr = { kind: 'compare', lhs: age, op: '=', rhs: { type: 'number', value: 1, int: true } };

describe('ZitiQL empty and constant filters', () => {
  it('treats an empty filter as no filter', () => {
    assert.deepEqual(parseQuery('', symbols), { filter: null, sort: [] });
  });

  it('treats a whitespace-only filter as no filter', () => {
    assert.deepEqual(parseQuery(' \t\r\n ', symbols), { filter: null, sort: [] });
  });

  it('parses the literals true and false', () => {
    assert.deepEqual(filterOf('true'), { kind: 'const', value: true });
    assert.deepEqual(filterOf('FALSE'), { kind: 'const', value: false });
  });

  it('allows surrounding whitespace', () => {
    assert.deepEqual(filterOf('  name = "a"\n'), nameIsA);
  });
});

describe('ZitiQL comparison operators', () => {
  for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) {
    it(`parses ${op} with and without whitespace`, () => {
      const expected: Expr = { kind: 'compare', lhs: age, op, rhs: { type: 'number', value: 3, int: true } };
      assert.deepEqual(filterOf(`age ${op} 3`), expected);
      assert.deepEqual(filterOf(`age${op}3`), expected);
    });
  }

  it('parses string comparisons with < and >', () => {
    assert.deepEqual(filterOf('name < "m"'), { kind: 'compare', lhs: name, op: '<', rhs: { type: 'string', value: 'm' } });
  });

  it('parses = null and != null', () => {
    assert.deepEqual(filterOf('name = null'), { kind: 'compare', lhs: name, op: '=', rhs: { type: 'null' } });
    assert.deepEqual(filterOf('name != null'), { kind: 'compare', lhs: name, op: '!=', rhs: { type: 'null' } });
  });

  it('rejects null with an ordering operator', () => {
    rejects('name < null', 'Unexpected symbol: "null" at line: 1 column: 7');
  });

  it('rejects a boolean with an ordering operator', () => {
    rejects('isAdmin > true', 'Unexpected symbol: "true" at line: 1 column: 10');
  });
});

describe('ZitiQL contains operators', () => {
  for (const op of ['contains', 'not contains', 'icontains', 'not icontains'] as const) {
    it(`parses ${op}`, () => {
      assert.deepEqual(filterOf(`name ${op} "x"`), { kind: 'compare', lhs: name, op, rhs: { type: 'string', value: 'x' } });
    });
  }

  it('accepts a number after contains', () => {
    assert.deepEqual(filterOf('name contains 12'), {
      kind: 'compare', lhs: name, op: 'contains', rhs: { type: 'number', value: 12, int: true },
    });
  });

  it('rejects a number after icontains', () => {
    rejects('name icontains 12', 'Unexpected symbol: "12" at line: 1 column: 15');
  });

  it('requires whitespace after contains', () => {
    rejects('name contains"x"', 'Unexpected symbol: ""x"" at line: 1 column: 13');
  });

  it('accepts several whitespace characters between not and contains', () => {
    const filter = filterOf('name NOT \t CONTAINS "x"');
    assert.equal(filter.kind === 'compare' && filter.op, 'not contains');
  });
});

describe('ZitiQL in and between', () => {
  it('parses in and not in', () => {
    const values = [{ type: 'string', value: 'a' }] as const;
    assert.deepEqual(filterOf('name in ["a"]'), { kind: 'in', lhs: name, negated: false, values: [...values] });
    assert.deepEqual(filterOf('name not in ["a"]'), { kind: 'in', lhs: name, negated: true, values: [...values] });
  });

  it('requires exactly one whitespace between not and in', () => {
    rejects('name not  in ["a"]', 'Unexpected symbol: "not" at line: 1 column: 5');
  });

  it('requires whitespace before the array', () => {
    rejects('name in["a"]', 'Unexpected symbol: "[" at line: 1 column: 7');
  });

  it('parses between and not between', () => {
    const lower = { type: 'number', value: 1, int: true } as const;
    const upper = { type: 'number', value: 5.5, int: false } as const;
    assert.deepEqual(filterOf('age between 1 and 5.5'), { kind: 'between', lhs: age, negated: false, lower, upper });
    assert.deepEqual(filterOf('age not between 1 and 5.5'), { kind: 'between', lhs: age, negated: true, lower, upper });
  });

  it('parses between datetimes', () => {
    const filter = filterOf('createdAt between datetime(2021-01-01T00:00:00Z) and datetime(2022-01-01T00:00:00Z)');
    assert.equal(filter.kind === 'between' && filter.upper.type, 'datetime');
  });

  it('rejects between a number and a datetime', () => {
    rejects('age between 1 and datetime(2022-01-01T00:00:00Z)', 'Unexpected symbol: "datetime(2022-01-01T00:00:00Z)" at line: 1 column: 18');
  });

  it('rejects between strings', () => {
    rejects('name between "a" and "b"', 'Unexpected symbol: ""a"" at line: 1 column: 13');
  });
});

describe('ZitiQL boolean structure', () => {
  it('binds and tighter than or (a or b and c)', () => {
    assert.deepEqual(filterOf('isAdmin or name = "a" and age = 1'), { kind: 'or', args: [isAdmin, { kind: 'and', args: [nameIsA, ageIs1] }] });
  });

  it('binds and tighter than or (a and b or c)', () => {
    assert.deepEqual(filterOf('name = "a" and age = 1 or isAdmin'), { kind: 'or', args: [{ kind: 'and', args: [nameIsA, ageIs1] }, isAdmin] });
  });

  it('lets parentheses override precedence', () => {
    assert.deepEqual(filterOf('name = "a" and (age = 1 or isAdmin)'), { kind: 'and', args: [nameIsA, { kind: 'or', args: [ageIs1, isAdmin] }] });
  });

  it('flattens chains of the same operator', () => {
    assert.deepEqual(filterOf('isAdmin and name = "a" and age = 1'), { kind: 'and', args: [isAdmin, nameIsA, ageIs1] });
  });

  it('applies not to the whole expression that follows', () => {
    assert.deepEqual(filterOf('not name = "a" and age = 1'), { kind: 'not', arg: { kind: 'and', args: [nameIsA, ageIs1] } });
  });

  it('limits not to a parenthesised expression', () => {
    assert.deepEqual(filterOf('(not isAdmin) and age = 1'), { kind: 'and', args: [{ kind: 'not', arg: isAdmin }, ageIs1] });
  });

  it('treats keywords case-insensitively', () => {
    assert.deepEqual(filterOf('name = "a" AnD age = 1 OR isAdmin'), { kind: 'or', args: [{ kind: 'and', args: [nameIsA, ageIs1] }, isAdmin] });
  });

  it('requires whitespace around and', () => {
    rejects('isAdmin and(age = 1)', 'Unexpected symbol: "(" at line: 1 column: 11');
    rejects('age = 1and isAdmin', 'Unexpected symbol: "and" at line: 1 column: 7');
  });

  it('requires whitespace after not', () => {
    rejects('not(isAdmin)', 'Unexpected symbol: "(" at line: 1 column: 3');
  });

  it('rejects an unbalanced parenthesis', () => {
    rejects('(isAdmin', 'Unexpected symbol: "<EOF>" at line: 1 column: 8');
  });

  it('accepts a bare bool symbol', () => {
    assert.deepEqual(filterOf('isAdmin'), isAdmin);
  });

  it('rejects a bare non-bool symbol', () => {
    rejects('name', "symbol 'name' of type string cannot be used as a boolean expression");
  });
});

describe('ZitiQL sort, skip and limit clauses', () => {
  it('parses each clause alone', () => {
    assert.deepEqual(parseQuery('limit 5', symbols), { filter: null, sort: [], limit: 5 });
    assert.deepEqual(parseQuery('sort by name', symbols), { filter: null, sort: [{ field: 'name', direction: 'asc' }] });
    assert.deepEqual(parseQuery('skip 10', symbols), { filter: null, sort: [], skip: 10 });
    assert.deepEqual(parseQuery('skip 10 limit 5', symbols), { filter: null, sort: [], skip: 10, limit: 5 });
  });

  it('parses limit none', () => {
    assert.deepEqual(parseQuery('limit none', symbols), { filter: null, sort: [], limit: 'none' });
  });

  it('parses all clauses after a filter, keywords in any case', () => {
    assert.deepEqual(parseQuery('isAdmin SORT BY name DESC, age Asc SKIP 1 LIMIT 2', symbols), {
      filter: isAdmin,
      sort: [{ field: 'name', direction: 'desc' }, { field: 'age', direction: 'asc' }],
      skip: 1,
      limit: 2,
    });
  });

  it('defaults the sort direction to asc', () => {
    assert.deepEqual(parseQuery('sort by name,age desc', symbols).sort, [
      { field: 'name', direction: 'asc' },
      { field: 'age', direction: 'desc' },
    ]);
  });

  it('keeps only the first five sort keys', () => {
    const { sort } = parseQuery('sort by name, age, score, isAdmin, createdAt desc, id', symbols);
    assert.deepEqual(sort.map((k) => k.field), ['name', 'age', 'score', 'isAdmin', 'createdAt']);
    assert.equal(sort[4].direction, 'desc');
  });

  it('rejects clauses out of order', () => {
    rejects('limit 5 skip 10', 'Unexpected symbol: "skip" at line: 1 column: 8');
    rejects('skip 1 sort by name', 'Unexpected symbol: "sort" at line: 1 column: 7');
  });

  it('requires whitespace before a clause', () => {
    rejects('name = "a"sort by name', 'Unexpected symbol: "sort" at line: 1 column: 10');
  });

  it('rejects a non-integer skip or limit', () => {
    rejects('skip 1.5', 'expected integer value for skip, but got 1.5');
    rejects('limit 2e1', 'expected integer value for limit, but got 2e1');
  });

  it('rejects sorting by an unknown symbol', () => {
    rejects('sort by foo', "unknown symbol 'foo'");
  });

  it('validates sort keys beyond the fifth', () => {
    rejects('sort by name, age, score, isAdmin, createdAt, foo', "unknown symbol 'foo'");
  });

  it('rejects sorting by a non-sortable symbol', () => {
    rejects('sort by secret', "symbol 'secret' is not sortable");
  });

  it('rejects sorting by a set symbol', () => {
    rejects('sort by roleAttributes', "symbol 'roleAttributes' is a set symbol but is used in non-set function context");
  });
});

describe('ZitiQL caps', () => {
  const wrap = (inner: string, n: number, open: string, close: string) => open.repeat(n) + inner + close.repeat(n);

  it(`parses ${MAX_FILTER_DEPTH} nested parentheses and refuses one more, naming the cap`, () => {
    assert.deepEqual(filterOf(wrap('name = "a"', MAX_FILTER_DEPTH, '(', ')')), nameIsA);
    rejects(wrap('name = "a"', MAX_FILTER_DEPTH + 1, '(', ')'), `filter nested more than ${MAX_FILTER_DEPTH} levels deep (the cap is ${MAX_FILTER_DEPTH})`);
  });

  it('counts not and parentheses together', () => {
    rejects(wrap('name = "a"', MAX_FILTER_DEPTH, 'not (', ')'), `filter nested more than ${MAX_FILTER_DEPTH} levels deep (the cap is ${MAX_FILTER_DEPTH})`);
  });

  it('refuses 4,000 nested parentheses (within the length cap) without recursing into them', () => {
    const text = wrap('true', 4000, '(', ')');
    assert.throws(() => parseQuery(text, symbols), QueryError);
  });

  it(`refuses a filter longer than ${MAX_FILTER_LENGTH} characters before parsing it`, () => {
    rejects(`name = "${'a'.repeat(MAX_FILTER_LENGTH)}"`, `filter longer than ${MAX_FILTER_LENGTH} characters (the cap is ${MAX_FILTER_LENGTH})`);
  });
});
