// The render cache: a kept rendering is served until a clear (a commit) or a forget of its entity
// (a login), a change of router presence, or the time its entity names; a rendering that
// straddles a clear or a forget is not kept.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache } from '../../../src/query/render-cache.js';
import type { Entity } from '../../../src/domain/commands.js';

const AT = '2029-01-01T00:00:00.000Z';

function entity(fields: Record<string, unknown> = {}): Entity {
  return { id: 'a', createdAt: AT, updatedAt: AT, tags: {}, ...fields };
}

function counting(record: Entity) {
  let renders = 0;
  return {
    get renders() {
      return renders;
    },
    render: async () => ({ json: `{"n":${++renders}}`, record }),
  };
}

/** The identity `a` as one viewer sees it. */
const K = ['identities', 'a', 'viewer'] as const;

describe('RenderCache', () => {
  it('serves a kept rendering until it is cleared', async () => {
    const cache = new RenderCache(() => 0);
    const r = counting(entity());
    assert.equal(await cache.render(...K, r.render), '{"n":1}');
    assert.equal(await cache.render(...K, r.render), '{"n":1}');
    cache.clear();
    assert.equal(await cache.render(...K, r.render), '{"n":2}');
    assert.equal(r.renders, 2);
  });

  it('fresh answers a kept rendering at once and nothing once it is stale', async () => {
    let presence = 0;
    const cache = new RenderCache(() => presence);
    assert.equal(cache.fresh(...K), undefined);
    await cache.render(...K, counting(entity()).render);
    assert.equal(cache.fresh(...K), '{"n":1}');
    presence++;
    assert.equal(cache.fresh(...K), undefined);
    await cache.render(...K, counting(entity()).render);
    cache.clear();
    assert.equal(cache.fresh(...K), undefined);
  });

  it('renders again when router presence changed', async () => {
    let presence = 0;
    const cache = new RenderCache(() => presence);
    const r = counting(entity());
    await cache.render(...K, r.render);
    presence++;
    assert.equal(await cache.render(...K, r.render), '{"n":2}');
    assert.equal(await cache.render(...K, r.render), '{"n":2}');
  });

  for (const [what, drop] of [
    ['a clear', (cache: RenderCache) => cache.clear()],
    ['a forget of its entity', (cache: RenderCache) => cache.forget('identities', 'a')],
  ] as const) {
    it(`does not keep a rendering that began before ${what}`, async () => {
      const cache = new RenderCache(() => 0);
      let release!: () => void;
      const slow = cache.render(...K, async () => {
        await new Promise<void>((done) => (release = done));
        return { json: '"old"', record: entity() };
      });
      await Promise.resolve();
      drop(cache);
      release();
      assert.equal(await slow, '"old"', 'the caller still gets what it rendered');
      assert.equal(cache.fresh(...K), undefined);
      assert.equal(await cache.render(...K, async () => ({ json: '"new"', record: entity() })), '"new"');
    });
  }

  it('keeps an identity disabled until a time only until that time', async () => {
    const cache = new RenderCache(() => 0);
    const until = Date.parse('2030-01-01T00:00:00.000Z');
    const r = counting(entity({ disabledAt: '2029-12-31T00:00:00.000Z', disabledUntil: '2030-01-01T00:00:00.000Z' }));
    await cache.render(...K, r.render, until - 1000);
    assert.equal(await cache.render(...K, r.render, until - 1), '{"n":1}');
    assert.equal(await cache.render(...K, r.render, until), '{"n":2}');
  });

  it('does not keep failed renderings', async () => {
    const cache = new RenderCache(() => 0);
    await assert.rejects(cache.render(...K, async () => Promise.reject(new Error('missing'))), /missing/);
    assert.equal(await cache.render(...K, async () => ({ json: '1', record: entity() })), '1');
  });
});

describe('RenderCache.forget', () => {
  it('drops every viewer rendering of one entity and keeps the others', async () => {
    const cache = new RenderCache(() => 0);
    const r = counting(entity());
    const kept = [['identities', 'a', 'v1'], ['identities', 'a', 'v2'], ['identities', 'ab', 'v1'], ['services', 'a', 'v1']] as const;
    for (const [kind, id, viewer] of kept) await cache.render(kind, id, viewer, r.render);
    cache.forget('identities', 'a');
    assert.equal(cache.fresh('identities', 'a', 'v1'), undefined);
    assert.equal(cache.fresh('identities', 'a', 'v2'), undefined);
    assert.ok(cache.fresh('identities', 'ab', 'v1'), 'an id that only starts the same is kept');
    assert.ok(cache.fresh('services', 'a', 'v1'), 'another kind is kept');
  });

  it('keeps at most 10,000 renderings, dropping the entity kept longest with all its viewers', async () => {
    const cache = new RenderCache(() => 0);
    const r = counting(entity());
    await cache.render('identities', 'first', 'v1', r.render);
    await cache.render('identities', 'first', 'v2', r.render);
    for (let i = 0; i < 9_998; i++) await cache.render('identities', `e${i}`, 'v', r.render);
    assert.ok(cache.fresh('identities', 'first', 'v2'), 'full, nothing dropped yet');
    await cache.render('identities', 'last', 'v', r.render);
    assert.equal(cache.fresh('identities', 'first', 'v1'), undefined);
    assert.equal(cache.fresh('identities', 'first', 'v2'), undefined);
    assert.ok(cache.fresh('identities', 'e0', 'v'));
    assert.ok(cache.fresh('identities', 'last', 'v'));
  });
  it('does not keep a rendering of a record read before a clear (a list page renders records it read earlier)', async () => {
    const cache = new RenderCache(() => 0);
    const since = cache.version;
    cache.clear(); // a commit between the list's read and its rendering
    const r = counting(entity());
    assert.equal(await cache.render(...K, r.render, Date.now(), since), '{"n":1}');
    assert.equal(cache.fresh(...K), undefined);
    const now = cache.version;
    assert.equal(await cache.render(...K, r.render, Date.now(), now), '{"n":2}');
    assert.equal(cache.fresh(...K), '{"n":2}');
  });
});
