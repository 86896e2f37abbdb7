// Unit tests for ZitiQL evaluation (BEHAVIOR.md §1.3): operators, null rules, half-open
// between, byte-wise strings, datetimes, set functions and subqueries over sub-records.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { evaluate, parseQuery, readPath } from '../../../../src/domain/query/index.js';
import { symbols } from './fixtures.js';

function matches(filter: string, record: Record<string, unknown>): boolean {
  return evaluate(parseQuery(filter, symbols).filter, (symbol) => readPath(record, symbol));
}

describe('evaluate: constants and boolean logic', () => {
  it('matches everything with a null filter', () => {
    assert.equal(evaluate(null, () => undefined), true);
  });

  it('evaluates true and false', () => {
    assert.equal(matches('true', {}), true);
    assert.equal(matches('false', {}), false);
  });

  it('evaluates and, or and not', () => {
    const rec = { name: 'a', age: 1, isAdmin: false };
    assert.equal(matches('name = "a" and age = 1', rec), true);
    assert.equal(matches('name = "a" and age = 2', rec), false);
    assert.equal(matches('name = "b" or age = 1', rec), true);
    assert.equal(matches('not isAdmin', rec), true);
  });

  it('evaluates and before or', () => {
    assert.equal(matches('isAdmin and name = "x" or age = 1', { isAdmin: false, age: 1 }), true);
    assert.equal(matches('age = 1 or isAdmin and name = "x"', { isAdmin: false, age: 1 }), true);
  });

  it('negates everything after not', () => {
    assert.equal(matches('not age = 1 or isAdmin', { age: 1, isAdmin: true }), false);
  });

  it('treats a bare bool symbol as true only when the value is true', () => {
    assert.equal(matches('isAdmin', { isAdmin: true }), true);
    assert.equal(matches('isAdmin', { isAdmin: false }), false);
    assert.equal(matches('isAdmin', {}), false);
    assert.equal(matches('isAdmin = false', { isAdmin: false }), true);
    assert.equal(matches('isAdmin != true', { isAdmin: false }), true);
  });
});

describe('evaluate: numbers', () => {
  const rec = { age: 5 };

  it('applies every comparison operator', () => {
    assert.deepEqual(
      ['age = 5', 'age != 5', 'age < 5', 'age <= 5', 'age > 4', 'age >= 6'].map((f) => matches(f, rec)),
      [true, false, false, true, true, false],
    );
  });

  it('compares ints with floats', () => {
    assert.equal(matches('age = 5.0', rec), true);
    assert.equal(matches('age < 5.5', rec), true);
    assert.equal(matches('score > 2', { score: 2.25 }), true);
  });

  it('matches in and not in', () => {
    assert.equal(matches('age in [1, 5]', rec), true);
    assert.equal(matches('age in [1, 2.5]', rec), false);
    assert.equal(matches('age not in [1, 2]', rec), true);
  });

  it('treats between as half-open', () => {
    assert.equal(matches('age between 1 and 1', { age: 1 }), false);
    assert.equal(matches('age between 5 and 6', rec), true);
    assert.equal(matches('age between 4 and 5', rec), false);
    assert.equal(matches('score between 1.5 and 2.5', { score: 2.4999 }), true);
  });

  it('negates between with not between', () => {
    assert.equal(matches('age not between 4 and 5', rec), true);
    assert.equal(matches('age not between 5 and 6', rec), false);
  });

  it('never matches a value of another type', () => {
    assert.equal(matches('tags.location = 5', { tags: { location: '5' } }), false);
    assert.equal(matches('tags.location = "5"', { tags: { location: 5 } }), false);
  });
});

describe('evaluate: strings', () => {
  it('compares strings byte-wise and case-sensitively', () => {
    assert.equal(matches('name < "a"', { name: 'Z' }), true);
    assert.equal(matches('name > "B"', { name: 'a' }), true);
    assert.equal(matches('name = "abc"', { name: 'ABC' }), false);
    assert.equal(matches('name > "\uffff"', { name: '\u{1F600}' }), true);
  });

  it('matches contains case-sensitively', () => {
    assert.equal(matches('name contains "ell"', { name: 'Hello' }), true);
    assert.equal(matches('name contains "ELL"', { name: 'Hello' }), false);
    assert.equal(matches('name not contains "ELL"', { name: 'Hello' }), true);
  });

  it('matches icontains after upper-casing both sides', () => {
    assert.equal(matches('name icontains "ELL"', { name: 'hello' }), true);
    assert.equal(matches('name not icontains "ELL"', { name: 'hello' }), false);
  });

  it('compares numbers in contains on their string form', () => {
    assert.equal(matches('age contains 23', { age: 1234 }), true);
    assert.equal(matches('age contains "34"', { age: 1234 }), true);
    assert.equal(matches('name contains 7', { name: 'r2d27' }), true);
    assert.equal(matches('score contains "2.5"', { score: 12.5 }), true);
  });

  it('matches string in lists', () => {
    assert.equal(matches('name in ["a", "b"]', { name: 'b' }), true);
    assert.equal(matches('name not in ["a", "b"]', { name: 'c' }), true);
  });

  it('reads map symbols through dotted paths', () => {
    assert.equal(matches('tags.location = "eu"', { tags: { location: 'eu' } }), true);
    assert.equal(matches('tags.location = "eu"', { tags: {} }), false);
  });
});

describe('evaluate: null handling', () => {
  const missing = {};

  it('makes comparisons with a missing value false', () => {
    for (const f of ['name = "x"', 'name < "x"', 'name >= "x"', 'name contains "x"', 'name icontains "x"', 'name in ["x"]', 'age between 1 and 2']) {
      assert.equal(matches(f, missing), false, f);
    }
  });

  it('makes != true when exactly one side is null', () => {
    assert.equal(matches('name != "x"', missing), true);
    assert.equal(matches('name != "x"', { name: null }), true);
  });

  it('makes not contains and not icontains true for a missing value', () => {
    assert.equal(matches('name not contains "x"', missing), true);
    assert.equal(matches('name not icontains "x"', missing), true);
  });

  it('negates the whole predicate for not in and not between on a missing value', () => {
    assert.equal(matches('name not in ["x"]', missing), true);
    assert.equal(matches('age not between 1 and 2', missing), true);
  });

  it('tests presence with = null and != null', () => {
    assert.equal(matches('name = null', missing), true);
    assert.equal(matches('name = null', { name: null }), true);
    assert.equal(matches('name != null', missing), false);
    assert.equal(matches('name = null', { name: '' }), false);
    assert.equal(matches('name != null', { name: '' }), true);
  });
});

describe('evaluate: datetimes', () => {
  const iso = '2021-06-01T12:00:00.000Z';
  const at = Date.parse(iso);

  it('reads ISO strings, Dates and epoch milliseconds', () => {
    for (const createdAt of [iso, new Date(at), at]) {
      assert.equal(matches('createdAt = datetime(2021-06-01T12:00:00Z)', { createdAt }), true);
      assert.equal(matches('createdAt > datetime(2021-01-01T00:00:00Z)', { createdAt }), true);
      assert.equal(matches('createdAt < datetime(2021-06-01T12:00:00Z)', { createdAt }), false);
    }
  });

  it('honours the literal offset', () => {
    assert.equal(matches('createdAt = datetime(2021-06-01T14:00:00+02:00)', { createdAt: iso }), true);
  });

  it('treats datetime between as half-open', () => {
    assert.equal(matches('createdAt between datetime(2021-06-01T12:00:00Z) and datetime(2021-06-02T00:00:00Z)', { createdAt: iso }), true);
    assert.equal(matches('createdAt between datetime(2021-01-01T00:00:00Z) and datetime(2021-06-01T12:00:00Z)', { createdAt: iso }), false);
  });

  it('matches datetime in lists', () => {
    assert.equal(matches('createdAt in [datetime(2020-01-01T00:00:00Z), datetime(2021-06-01T12:00:00Z)]', { createdAt: iso }), true);
  });
});

describe('evaluate: set functions', () => {
  const rec = { roleAttributes: ['sales', 'eu'], scores: [1, 5, 9] };

  it('matches anyOf when some element matches', () => {
    assert.equal(matches('anyOf(roleAttributes) = "eu"', rec), true);
    assert.equal(matches('anyOf(roleAttributes) = "us"', rec), false);
    assert.equal(matches('anyOf(scores) > 8', rec), true);
    assert.equal(matches('anyOf(roleAttributes) contains "al"', rec), true);
  });

  it('matches allOf when every element matches', () => {
    assert.equal(matches('allOf(scores) >= 1', rec), true);
    assert.equal(matches('allOf(scores) > 1', rec), false);
    assert.equal(matches('allOf(roleAttributes) != "us"', rec), true);
  });

  it('treats allOf on an empty set as true and anyOf as false', () => {
    assert.equal(matches('allOf(roleAttributes) = "x"', { roleAttributes: [] }), true);
    assert.equal(matches('anyOf(roleAttributes) = "x"', { roleAttributes: [] }), false);
    assert.equal(matches('allOf(roleAttributes) = "x"', {}), true);
  });

  it('applies anyOf in and between per element', () => {
    assert.equal(matches('anyOf(roleAttributes) in ["us", "eu"]', rec), true);
    assert.equal(matches('anyOf(scores) between 2 and 5', rec), false);
    assert.equal(matches('anyOf(scores) between 2 and 6', rec), true);
  });

  it('negates the whole anyOf for not in', () => {
    assert.equal(matches('anyOf(roleAttributes) not in ["sales"]', rec), false);
    assert.equal(matches('anyOf(roleAttributes) not in ["us"]', rec), true);
  });

  it('counts set elements', () => {
    assert.equal(matches('count(roleAttributes) = 2', rec), true);
    assert.equal(matches('count(roleAttributes) between 0 and 2', rec), false);
    assert.equal(matches('count(roleAttributes) = 0', {}), true);
  });

  it('tests emptiness with isEmpty', () => {
    assert.equal(matches('isEmpty(roleAttributes)', rec), false);
    assert.equal(matches('isEmpty(roleAttributes)', { roleAttributes: [] }), true);
    assert.equal(matches('isEmpty(roleAttributes)', {}), true);
    assert.equal(matches('not isEmpty(roleAttributes)', rec), true);
  });
});

describe('evaluate: subqueries', () => {
  const rec = {
    edgeRouterPolicies: [
      { id: 'p1', name: 'alpha', identities: ['abc', 'def'] },
      { id: 'p2', name: 'beta', identities: ['xyz'] },
      { id: 'p3', name: 'gamma', identities: ['abc'] },
    ],
  };

  it('yields the sub-records matching the subquery', () => {
    assert.equal(matches('not isEmpty(from edgeRouterPolicies where anyOf(identities) = "abc")', rec), true);
    assert.equal(matches('isEmpty(from edgeRouterPolicies where anyOf(identities) = "nope")', rec), true);
    assert.equal(matches('count(from edgeRouterPolicies where anyOf(identities) = "abc") = 2', rec), true);
    assert.equal(matches('count(from edgeRouterPolicies where name contains "a") = 3', rec), true);
  });

  it('applies skip and limit inside a subquery', () => {
    assert.equal(matches('count(from edgeRouterPolicies where true limit 1) = 1', rec), true);
    assert.equal(matches('count(from edgeRouterPolicies where true skip 2) = 1', rec), true);
    assert.equal(matches('count(from edgeRouterPolicies where true limit none) = 3', rec), true);
  });

  it('treats a missing sub-record list as empty', () => {
    assert.equal(matches('isEmpty(from edgeRouterPolicies where true)', {}), true);
  });
});
