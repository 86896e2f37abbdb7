// The envelope of a page answered as JSON text: sendPageJson writes the bytes sendData writes for
// the parsed answer (the API versions first in meta, "no limit" as a number), whatever the items
// hold.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'koa';
import { sendData, sendPageJson } from '../../../src/gateway/envelope.js';
import { NO_LIMIT_REPORTED } from '../../../src/domain/paging.js';

/** The parts of a Koa context the envelope writes. */
function fakeContext(): Context & { headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  return { headers, status: 0, body: undefined, set: (k: string, v: string) => void (headers[k] = v) } as unknown as Context & { headers: Record<string, string> };
}

function bothWays(answer: { data: unknown; meta: Record<string, unknown> }) {
  const parsed = fakeContext();
  sendData(parsed, answer.data, answer.meta);
  const text = fakeContext();
  sendPageJson(text, JSON.stringify(answer));
  return { parsed, text };
}

describe('sendPageJson', () => {
  it('writes what sendData writes for a list page', () => {
    const { parsed, text } = bothWays({
      data: [{ id: 'a', name: 'x', tags: {} }, { id: 'b', name: 'y', tags: { k: 1 } }],
      meta: { filterableFields: ['id', 'name'], pagination: { limit: 10, offset: 0, totalCount: 2 } },
    });
    assert.equal(text.body, parsed.body);
    assert.equal(text.status, 200);
    assert.deepEqual(text.headers, parsed.headers);
    assert.deepEqual(Object.keys(JSON.parse(text.body as string).meta), ['apiVersion', 'apiEnrollmentVersion', 'filterableFields', 'pagination']);
  });

  it('finds the envelope\'s meta when items hold a "meta" object of their own', () => {
    const { parsed, text } = bothWays({
      data: [{ id: 'a', tags: { meta: { x: 1 } }, meta: { y: '","meta":{' } }],
      meta: { pagination: { limit: 10, offset: 0, totalCount: 1 } },
    });
    assert.equal(text.body, parsed.body);
    assert.deepEqual(JSON.parse(text.body as string).data[0].tags, { meta: { x: 1 } });
  });

  it('writes an empty page, an empty meta and "no limit" as sendData does', () => {
    for (const answer of [
      { data: [], meta: {} },
      { data: [], meta: { pagination: { limit: NO_LIMIT_REPORTED, offset: 0, totalCount: 0 } } },
    ]) {
      const { parsed, text } = bothWays(answer);
      assert.equal(text.body, parsed.body);
    }
    const { text } = bothWays({ data: [], meta: { pagination: { limit: NO_LIMIT_REPORTED, offset: 0, totalCount: 0 } } });
    assert.match(text.body as string, /"limit":9223372036854775807/);
  });

  it('refuses text that is not a page answer', () => {
    assert.throws(() => sendPageJson(fakeContext(), '{"cursor":"c1","meta":{}}'), /not a page answer/);
    assert.throws(() => sendPageJson(fakeContext(), '{"data":[]}'), /not a page answer/);
  });
});
