// The render cache: a kept rendering is served until a clear (a commit), a change of router
// presence, or the time its entity names; a rendering that straddles a clear is not kept.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache } from '../../../src/actors/query/render-cache.js';
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

describe('RenderCache', () => {
  it('serves a kept rendering until it is cleared', async () => {
    const cache = new RenderCache(() => 0);
    const r = counting(entity());
    assert.equal(await cache.render('k', r.render), '{"n":1}');
    assert.equal(await cache.render('k', r.render), '{"n":1}');
    cache.clear();
    assert.equal(await cache.render('k', r.render), '{"n":2}');
    assert.equal(r.renders, 2);
  });

  it('fresh answers a kept rendering at once and nothing once it is stale', async () => {
    let presence = 0;
    const cache = new RenderCache(() => presence);
    assert.equal(cache.fresh('k'), undefined);
    await cache.render('k', counting(entity()).render);
    assert.equal(cache.fresh('k'), '{"n":1}');
    presence++;
    assert.equal(cache.fresh('k'), undefined);
    await cache.render('k', counting(entity()).render);
    cache.clear();
    assert.equal(cache.fresh('k'), undefined);
  });

  it('renders again when router presence changed', async () => {
    let presence = 0;
    const cache = new RenderCache(() => presence);
    const r = counting(entity());
    await cache.render('k', r.render);
    presence++;
    assert.equal(await cache.render('k', r.render), '{"n":2}');
    assert.equal(await cache.render('k', r.render), '{"n":2}');
  });

  it('does not keep a rendering that began before a clear', async () => {
    const cache = new RenderCache(() => 0);
    let release!: () => void;
    const slow = cache.render('k', async () => {
      await new Promise<void>((done) => (release = done));
      return { json: '"old"', record: entity() };
    });
    await Promise.resolve();
    cache.clear();
    release();
    assert.equal(await slow, '"old"', 'the caller still gets what it rendered');
    assert.equal(await cache.render('k', async () => ({ json: '"new"', record: entity() })), '"new"');
  });

  it('keeps an identity disabled until a time only until that time', async () => {
    const cache = new RenderCache(() => 0);
    const until = Date.parse('2030-01-01T00:00:00.000Z');
    const r = counting(entity({ disabledAt: '2029-12-31T00:00:00.000Z', disabledUntil: '2030-01-01T00:00:00.000Z' }));
    await cache.render('k', r.render, until - 1000);
    assert.equal(await cache.render('k', r.render, until - 1), '{"n":1}');
    assert.equal(await cache.render('k', r.render, until), '{"n":2}');
  });

  it('does not keep failed renderings', async () => {
    const cache = new RenderCache(() => 0);
    await assert.rejects(cache.render('k', async () => Promise.reject(new Error('missing'))), /missing/);
    assert.equal(await cache.render('k', async () => ({ json: '1', record: entity() })), '1');
  });
});

describe('RenderCache.forget', () => {
  it('drops every viewer rendering of one entity and keeps the others', async () => {
    const cache = new RenderCache(() => 0);
    const r = counting(entity());
    for (const key of ['identities\u0000a\u0000v1\u0000', 'identities\u0000a\u0000v2\u0000', 'identities\u0000ab\u0000v1\u0000', 'services\u0000a\u0000v1\u0000']) {
      await cache.render(key, r.render);
    }
    cache.forget('identities', 'a');
    assert.equal(cache.fresh('identities\u0000a\u0000v1\u0000'), undefined);
    assert.equal(cache.fresh('identities\u0000a\u0000v2\u0000'), undefined);
    assert.ok(cache.fresh('identities\u0000ab\u0000v1\u0000'), 'an id that only starts the same is kept');
    assert.ok(cache.fresh('services\u0000a\u0000v1\u0000'), 'another kind is kept');
  });

  it('does not keep a rendering that began before a forget', async () => {
    const cache = new RenderCache(() => 0);
    let release!: () => void;
    const slow = cache.render('identities\u0000a\u0000\u0000', async () => {
      await new Promise<void>((done) => (release = done));
      return { json: '{"old":true}', record: entity() };
    });
    cache.forget('identities', 'a');
    release();
    assert.equal(await slow, '{"old":true}');
    assert.equal(cache.fresh('identities\u0000a\u0000\u0000'), undefined);
  });
});
