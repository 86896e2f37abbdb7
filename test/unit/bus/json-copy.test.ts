// jsonCopy must give exactly what a JSON round trip gives, for plain data and for everything
// JSON treats specially, and fail where JSON.stringify fails.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonCopy } from '../../../src/bus/json-copy.js';

const roundTrip = (value: unknown): unknown => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
};

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
const withExtra = Object.assign([1, 2], { extra: 'dropped' });
const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
const withGetter = Object.defineProperty({ plain: 1 }, 'computed', { get: () => 'got', enumerable: true });
const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false });
const inherited = Object.assign(Object.create({ fromProto: 1 }) as Record<string, unknown>, { own: 2 });

const CASES: Array<[string, unknown]> = [
  ['a gateway read', { op: 'get', kind: 'identities', id: 'id-1', viewer: { identityId: 'admin', configTypes: undefined } }],
  ['strings with escapes and lone surrogates', { s: 'quote " backslash \\ nl \n tab \t nul \u0000 é ✓ \ud800' }],
  ['numbers: -0, NaN, Infinity, large and small', [-0, NaN, Infinity, -Infinity, 1e308, 5e-324, 0.1 + 0.2]],
  ['undefined, functions and symbols: dropped in objects, null in arrays', { u: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1, Symbol('y')] }],
  ['holes and extra array properties', { sparse, withExtra }],
  ['key order, numeric keys first', { b: 1, a: 2, 10: 'ten', 2: 'two', z: { y: 1, 1: 'one' } }],
  ['a null-prototype object', nullProto],
  ['getters, non-enumerable and inherited properties', { withGetter, hidden, inherited }],
  ['Dates, class instances, boxed values, Maps and typed arrays', { d: new Date(0), p: new Point(1, 2), b: new Boolean(false), n: new Number(3), s: new String('x'), m: new Map([[1, 2]]), t: new Uint8Array([1, 2]) }],
  ['toJSON', { j: { toJSON: () => ({ replaced: true }) } }],
  ['a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}')],
  ['deep nesting', JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`)],
  ['top-level primitives', ['x', 1, true, null]],
  ['empty containers', { o: {}, a: [] }],
];

describe('jsonCopy', () => {
  for (const [name, value] of CASES) {
    it(`equals a JSON round trip: ${name}`, () => {
      assert.deepStrictEqual(jsonCopy(value), roundTrip(value));
      assert.equal(JSON.stringify(jsonCopy(value)), JSON.stringify(value));
    });
  }

  it('gives undefined for undefined, a function and a symbol at the top', () => {
    for (const value of [undefined, () => 1, Symbol('x')]) assert.equal(jsonCopy(value), undefined);
  });

  it('copies: changing the copy leaves the original alone', () => {
    const original = { list: [{ n: 1 }], nested: { m: 2 } };
    const copied = jsonCopy(original) as typeof original;
    copied.list[0].n = 9;
    copied.nested.m = 9;
    assert.deepEqual(original, { list: [{ n: 1 }], nested: { m: 2 } });
  });

  it('sets no prototype from a __proto__ key', () => {
    const copied = jsonCopy(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('fails as JSON.stringify does on a cycle and on a BigInt', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.throws(() => jsonCopy(cyclic), TypeError);
    assert.throws(() => jsonCopy({ big: 1n }), TypeError);
  });
});
