// Unit tests of subject naming: stable sharding, and ids never leaking raw into subjects.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_SHARD_COUNT,
  entitySubject,
  eventSubject,
  isValidSubject,
  kindWildcard,
  querySubject,
  scopedEventSubject,
  shardOf,
} from '../../../src/bus/subjects.js';

/** shardOf of '', 'a', 'abc', 'identity-1', 'svc.web.01' with 64 shards (FNV-1a + fmix32). */
const PINNED = [11, 51, 60, 57, 44];

const NASTY_IDS = ['a.b.c', 'x-y-z', '*', '>', 'a.*.>', ' spaced id ', '', 'ünïcode.✓', 'tab\tid', '..'];

test('shardOf is pinned: the same ids map to the same shards in every release', () => {
  // Changing these values re-routes every entity of a running cluster: never update them casually.
  assert.deepEqual(
    ['', 'a', 'abc', 'identity-1', 'svc.web.01'].map((id) => shardOf(id)),
    ['', 'a', 'abc', 'identity-1', 'svc.web.01'].map((id) => shardOf(id, 64)),
  );
  assert.deepEqual(['', 'a', 'abc', 'identity-1', 'svc.web.01'].map((id) => shardOf(id)), PINNED);
});

test('shardOf stays in range and spreads ids over the shards', () => {
  const counts = new Array<number>(DEFAULT_SHARD_COUNT).fill(0);
  for (let i = 0; i < 64_000; i++) {
    const shard = shardOf(`entity-${i}.x`);
    assert.ok(Number.isInteger(shard) && shard >= 0 && shard < DEFAULT_SHARD_COUNT);
    counts[shard]++;
  }
  assert.ok(Math.min(...counts) > 800 && Math.max(...counts) < 1200, `uneven spread: ${counts}`);
  for (const n of [1, 2, 7, 1000]) assert.ok(shardOf('abc', n) < n);
  assert.equal(shardOf('anything', 1), 0);
});

test('shardOf rejects an invalid shard count', () => {
  for (const n of [0, -1, 1.5, Number.NaN, 70_000]) assert.throws(() => shardOf('x', n));
});

test('entitySubject is weft.v1.cluster.<cluster>.<kind>.<shard> and never contains the id', () => {
  assert.equal(entitySubject('identity', 'abc'), `weft.v1.cluster.weft.identity.${shardOf('abc')}`);
  assert.equal(entitySubject('edge-router', 'abc', 8, { cluster: 'alpha' }), `weft.v1.cluster.alpha.edge-router.${shardOf('abc', 8)}`);
  for (const id of NASTY_IDS) {
    const subject = entitySubject('service', id);
    assert.match(subject, /^weft\.v1\.cluster\.weft\.service\.\d+$/);
    assert.ok(isValidSubject(subject, false), subject);
  }
});

test('kindWildcard matches every shard of one kind', () => {
  assert.equal(kindWildcard('identity'), 'weft.v1.cluster.weft.identity.*');
  assert.ok(isValidSubject(kindWildcard('identity'), true));
});

test('entity kinds must be one plain token and not a reserved family', () => {
  for (const kind of ['', 'a.b', '*', '>', 'x y', 'query', 'events']) {
    assert.throws(() => entitySubject(kind, 'id'), /invalid entity kind/);
    assert.throws(() => kindWildcard(kind), /invalid entity kind/);
  }
});

test('querySubject keeps plain node ids readable and encodes the rest into one safe token', () => {
  assert.equal(querySubject('node-1'), 'weft.v1.query.node-1');
  assert.equal(querySubject('node_A'), 'weft.v1.query.node_A');
  const seen = new Set<string>();
  for (const id of NASTY_IDS) {
    const subject = querySubject(id);
    assert.ok(subject.startsWith('weft.v1.query.'), subject);
    const token = subject.slice('weft.v1.query.'.length);
    const plain = /^[A-Za-z0-9_-]+$/.test(id);
    if (plain) assert.equal(token, id);
    else assert.match(token, /^~[A-Za-z0-9_-]*$/, `id ${JSON.stringify(id)} leaked: ${subject}`);
    assert.ok(isValidSubject(subject, false), subject);
    seen.add(subject);
  }
  assert.equal(seen.size, NASTY_IDS.length, 'distinct ids give distinct subjects');
});

test('eventSubject accepts dot-separated plain topics only', () => {
  assert.equal(eventSubject('entity-changed'), 'weft.v1.events.entity-changed');
  assert.equal(eventSubject('entity.changed.identity'), 'weft.v1.events.entity.changed.identity');
  for (const topic of ['', 'a..b', '*', 'a.>', 'x y', '.a', 'a.']) {
    assert.throws(() => eventSubject(topic), /invalid event topic/);
  }
});

test('isValidSubject follows the NATS grammar', () => {
  assert.ok(isValidSubject('a.b.c', false));
  assert.ok(isValidSubject('a.*.c', true));
  assert.ok(isValidSubject('a.>', true));
  assert.ok(!isValidSubject('a.*.c', false));
  assert.ok(!isValidSubject('a.>.c', true));
  assert.ok(!isValidSubject('a.b*.c', true));
  assert.ok(!isValidSubject('a..c', true));
  assert.ok(!isValidSubject('', true));
  assert.ok(!isValidSubject('a b', true));
});

test('two clusters, or two embedded nodes, on one NATS system never share a command or revocation subject', () => {
  const scopes = [{ cluster: 'alpha' }, { cluster: 'beta' }, { node: 'alpha' }, { node: 'n-2' }];
  const subjects = scopes.map((scope) => [kindWildcard('identity', scope), scopedEventSubject(scope, 'posture.revocations')]);
  assert.equal(new Set(subjects.flat()).size, subjects.flat().length, JSON.stringify(subjects));
  assert.equal(scopedEventSubject({ cluster: 'alpha' }, 'posture.revocations'), 'weft.v1.cluster.alpha.events.posture.revocations');
  assert.throws(() => kindWildcard('identity', { cluster: 'a.b' }), /cluster name/);
  assert.throws(() => entitySubject('cluster', 'x'), /reserved|kind/);
});
