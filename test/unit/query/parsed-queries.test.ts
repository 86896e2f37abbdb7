// Parsed list queries kept by their text: the same kind, filter and sort are parsed once and
// shared frozen; a failed parse is not kept; very long texts are parsed every time.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParsedQueries } from '../../../src/query/parsed-queries.js';
import { parseListQuery } from '../../../src/query/query-handler.js';
import type { Query } from '../../../src/domain/query/index.js';

function counting(kind: string, filter: string, sort = '') {
  let parses = 0;
  return {
    get parses() {
      return parses;
    },
    parse: (): Query => {
      parses++;
      return parseListQuery(kind, { filter, sort });
    },
  };
}

describe('ParsedQueries', () => {
  it('parses a kind, filter and sort once and answers the same query after', () => {
    const kept = new ParsedQueries();
    const p = counting('identities', 'anyOf(roleAttributes) = "team7"');
    const first = kept.get('identities', 'anyOf(roleAttributes) = "team7"', '', p.parse);
    const again = kept.get('identities', 'anyOf(roleAttributes) = "team7"', '', p.parse);
    assert.equal(p.parses, 1);
    assert.equal(again, first);
    assert.deepEqual(first, parseListQuery('identities', { filter: 'anyOf(roleAttributes) = "team7"' }));
  });

  it('keeps another kind, filter or sort apart', () => {
    const kept = new ParsedQueries();
    const byName = kept.get('identities', 'name = "a"', '', counting('identities', 'name = "a"').parse);
    const sorted = kept.get('identities', 'name = "a"', 'name desc', counting('identities', 'name = "a"', 'name desc').parse);
    const services = kept.get('services', 'name = "a"', '', counting('services', 'name = "a"').parse);
    assert.notEqual(sorted, byName);
    assert.deepEqual(sorted.sort, [{ field: 'name', direction: 'desc' }]);
    assert.notEqual(services, byName);
    assert.equal(kept.size, 3);
  });

  it('shares a frozen query: changing it throws instead of changing the next list', () => {
    const kept = new ParsedQueries();
    const query = kept.get('identities', 'name = "a" and isAdmin = false', '', counting('identities', 'name = "a" and isAdmin = false').parse);
    assert.throws(() => query.sort.push({ field: 'id', direction: 'asc' }), TypeError);
    assert.throws(() => ((query as { filter: unknown }).filter = null), TypeError);
    assert.ok(Object.isFrozen(query.filter));
  });

  it('does not keep a failed parse: the error is thrown every time', () => {
    const kept = new ParsedQueries();
    const p = counting('identities', 'nosuchfield = 1');
    assert.throws(() => kept.get('identities', 'nosuchfield = 1', '', p.parse), (err: unknown) => (err as { code?: string }).code === 'INVALID_FILTER');
    assert.throws(() => kept.get('identities', 'nosuchfield = 1', '', p.parse), (err: unknown) => (err as { code?: string }).code === 'INVALID_FILTER');
    assert.equal(p.parses, 2);
    assert.equal(kept.size, 0);
  });

  it('parses a very long filter every time and keeps at most 512 queries', () => {
    const kept = new ParsedQueries();
    const long = `name in [${Array.from({ length: 400 }, (_, i) => `"n${i}"`).join(',')}]`;
    const p = counting('identities', long);
    kept.get('identities', long, '', p.parse);
    kept.get('identities', long, '', p.parse);
    assert.equal(p.parses, 2);
    for (let i = 0; i < 600; i++) kept.get('identities', `name = "n${i}"`, '', counting('identities', `name = "n${i}"`).parse);
    assert.ok(kept.size <= 512, `${kept.size} kept`);
    const last = counting('identities', 'name = "n599"');
    kept.get('identities', 'name = "n599"', '', last.parse);
    assert.equal(last.parses, 0);
  });
});
