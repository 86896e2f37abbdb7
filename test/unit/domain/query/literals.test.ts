// Unit tests for ZitiQL literals and lexical errors: strings, numbers, booleans, null,
// datetimes, identifiers and arrays, with upstream-style "Unexpected symbol" positions.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { parseQuery, QueryError, type Expr, type Literal } from '../../../../src/domain/query/index.js';
import { symbols } from './fixtures.js';

function filterOf(text: string): Expr {
  const { filter } = parseQuery(text, symbols);
  assert.ok(filter);
  return filter;
}

function rhsOf(text: string): Literal {
  const filter = filterOf(text);
  assert.equal(filter.kind, 'compare');
  return filter.rhs;
}

function valuesOf(text: string): Literal[] {
  const filter = filterOf(text);
  assert.equal(filter.kind, 'in');
  return filter.values;
}

function rejects(text: string, message: string): void {
  assert.throws(() => parseQuery(text, symbols), (err: unknown) => {
    assert.ok(err instanceof QueryError);
    assert.equal(err.message, message);
    return true;
  });
}

describe('ZitiQL string literals', () => {
  it('decodes the escapes \\" \\\\ \\f \\n \\r \\t', () => {
    assert.deepEqual(rhsOf('name = "a\\"b\\\\c\\fd\\ne\\rf\\tg"'), { type: 'string', value: 'a"b\\c\fd\ne\rf\tg' });
  });

  it('rejects an unsupported escape', () => {
    rejects('name = "a\\x"', 'Unexpected symbol: ""a\\x" at line: 1 column: 7');
  });

  it('rejects a raw control character inside a string', () => {
    rejects('name = "a\tb"', 'Unexpected symbol: ""a\t" at line: 1 column: 7');
  });

  it('rejects an unterminated string', () => {
    rejects('name = "abc', 'Unexpected symbol: ""abc" at line: 1 column: 7');
  });

  it('rejects single-quoted strings (single quotes quote identifiers)', () => {
    rejects("name = 'abc'", `Unexpected symbol: "'abc'" at line: 1 column: 7`);
  });

  it('accepts non-ASCII text in strings', () => {
    assert.deepEqual(rhsOf('name = "zürich ☃"'), { type: 'string', value: 'zürich ☃' });
  });
});

describe('ZitiQL identifiers', () => {
  it('accepts an identifier wrapped in single quotes', () => {
    assert.deepEqual(filterOf(`'name' = "x"`), {
      kind: 'compare', lhs: { kind: 'symbol', symbol: 'name' }, op: '=', rhs: { type: 'string', value: 'x' },
    });
  });

  it('rejects digits in identifiers', () => {
    rejects('name2 = "x"', 'Unexpected symbol: "2" at line: 1 column: 4');
  });

  it('accepts dotted identifiers whose later segments contain dashes', () => {
    const filter = filterOf('tags.my-key = "x"');
    assert.equal(filter.kind, 'compare');
    assert.deepEqual(filter.lhs, { kind: 'symbol', symbol: 'tags.my-key' });
  });

  it('rejects a dash in the first segment', () => {
    rejects('my-name = "x"', 'Unexpected symbol: "-n" at line: 1 column: 2');
  });

  it('does not treat a keyword inside a longer identifier as a keyword', () => {
    assert.throws(() => parseQuery('notable = "x"', symbols), { message: "unknown symbol 'notable'" });
  });

  it('rejects an unknown character', () => {
    rejects('name # "x"', 'Unexpected symbol: "#" at line: 1 column: 5');
  });
});

describe('ZitiQL number literals', () => {
  it('parses an integer as int', () => {
    assert.deepEqual(rhsOf('age = 42'), { type: 'number', value: 42, int: true });
  });

  it('parses a negative integer', () => {
    assert.deepEqual(rhsOf('age = -3'), { type: 'number', value: -3, int: true });
  });

  it('parses a decimal as float', () => {
    assert.deepEqual(rhsOf('age = 2.5'), { type: 'number', value: 2.5, int: false });
  });

  it('parses an exponent as float', () => {
    assert.deepEqual(rhsOf('age = 1e3'), { type: 'number', value: 1000, int: false });
    assert.deepEqual(rhsOf('age = 2.5E-1'), { type: 'number', value: 0.25, int: false });
  });

  it('parses an integer beyond int64 as float', () => {
    assert.deepEqual(rhsOf('age = 9223372036854775808'), { type: 'number', value: 9223372036854775808, int: false });
  });

  it('rejects a leading zero', () => {
    rejects('age = 01', 'Unexpected symbol: "1" at line: 1 column: 7');
  });

  it('rejects a dangling minus sign', () => {
    rejects('age = -x', 'Unexpected symbol: "-x" at line: 1 column: 6');
  });
});

describe('ZitiQL boolean and null literals', () => {
  it('parses true and false in any case', () => {
    assert.deepEqual(rhsOf('isAdmin = TRUE'), { type: 'bool', value: true });
    assert.deepEqual(rhsOf('isAdmin = False'), { type: 'bool', value: false });
  });

  it('parses null in any case', () => {
    assert.deepEqual(rhsOf('name = NULL'), { type: 'null' });
    assert.deepEqual(rhsOf('name != null'), { type: 'null' });
  });
});

describe('ZitiQL datetime literals', () => {
  const epoch = Date.UTC(2021, 0, 1);

  it('parses a UTC datetime', () => {
    assert.deepEqual(rhsOf('createdAt = datetime(2021-01-01T00:00:00Z)'), {
      type: 'datetime', value: epoch, text: '2021-01-01T00:00:00Z',
    });
  });

  it('applies a numeric offset', () => {
    const lit = rhsOf('createdAt = datetime(2021-01-01T02:30:00+02:30)');
    assert.equal(lit.type === 'datetime' && lit.value, epoch);
    const west = rhsOf('createdAt = datetime(2020-12-31T19:00:00-05:00)');
    assert.equal(west.type === 'datetime' && west.value, epoch);
  });

  it('accepts fractional seconds', () => {
    const lit = rhsOf('createdAt = datetime(2021-01-01T00:00:00.123456Z)');
    assert.equal(lit.type === 'datetime' && lit.value, epoch + 123);
  });

  it('accepts lowercase t and z', () => {
    const lit = rhsOf('createdAt = datetime(2021-01-01t00:00:00z)');
    assert.equal(lit.type === 'datetime' && lit.value, epoch);
  });

  it('accepts whitespace inside the parentheses', () => {
    const lit = rhsOf('createdAt = datetime(  2021-01-01T00:00:00Z\t)');
    assert.equal(lit.type === 'datetime' && lit.value, epoch);
  });

  it('rejects a datetime without an offset', () => {
    rejects('createdAt > datetime(2021-01-01T00:00:00)', 'Unexpected symbol: "datetime" at line: 1 column: 12');
  });

  it('rejects a date-only datetime', () => {
    rejects('createdAt > datetime(2021-01-01)', 'Unexpected symbol: "datetime" at line: 1 column: 12');
  });

  it('rejects an impossible calendar date after parsing', () => {
    rejects('createdAt = datetime(2021-02-30T00:00:00Z)', "invalid datetime '2021-02-30T00:00:00Z'");
  });
});

describe('ZitiQL array literals', () => {
  it('parses a string array', () => {
    assert.deepEqual(valuesOf('name in ["a", "b"]'), [
      { type: 'string', value: 'a' },
      { type: 'string', value: 'b' },
    ]);
  });

  it('allows whitespace around elements and commas', () => {
    assert.equal(valuesOf('name in [ "a" ,\n"b" ]').length, 2);
  });

  it('turns a mixed int/float array into floats', () => {
    assert.deepEqual(valuesOf('age in [1, 2.5]'), [
      { type: 'number', value: 1, int: false },
      { type: 'number', value: 2.5, int: false },
    ]);
  });

  it('keeps an all-int array as ints', () => {
    assert.deepEqual(valuesOf('age in [1,2]'), [
      { type: 'number', value: 1, int: true },
      { type: 'number', value: 2, int: true },
    ]);
  });

  it('parses a datetime array', () => {
    const values = valuesOf('createdAt in [datetime(2021-01-01T00:00:00Z), datetime(2022-01-01T00:00:00Z)]');
    assert.deepEqual(values.map((v) => v.type === 'datetime' && v.value), [Date.UTC(2021, 0, 1), Date.UTC(2022, 0, 1)]);
  });

  it('rejects an empty array', () => {
    rejects('name in []', 'Unexpected symbol: "]" at line: 1 column: 9');
  });

  it('rejects a mixed string/number array', () => {
    rejects('name in ["a", 1]', 'Unexpected symbol: "1" at line: 1 column: 14');
  });

  it('rejects booleans in arrays', () => {
    rejects('isAdmin in [true]', 'Unexpected symbol: "true" at line: 1 column: 12');
  });
});

describe('ZitiQL syntax error reporting', () => {
  it('reports the line and 0-based column of the offending symbol', () => {
    rejects('name = "a" and\nage = xyz', 'Unexpected symbol: "xyz" at line: 2 column: 6');
  });

  it('reports only the first error', () => {
    rejects('name = xyz and foo = ', 'Unexpected symbol: "xyz" at line: 1 column: 7');
  });

  it('reports end of input as <EOF>', () => {
    rejects('name = ', 'Unexpected symbol: "<EOF>" at line: 1 column: 7');
  });

  it('reports a syntax error before any unknown symbol', () => {
    rejects('foo = 1 bar', 'Unexpected symbol: "bar" at line: 1 column: 8');
  });
});
