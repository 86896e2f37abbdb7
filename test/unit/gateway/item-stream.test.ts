// The gateway's streamed answers of lists it merges or filters: a merge keeps the lists' order
// (earlier list first on a tie, as a stable sort of the lists end to end), the body's bytes are
// those of the list built whole, and an answer that ends early closes every cursor it opened.

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { Context } from 'koa';
import { sendData } from '../../../src/gateway/envelope.js';
import { mergeInOrder, openLists, pageItems, sendItemStream } from '../../../src/gateway/item-stream.js';
import type { NodeClient } from '../../../src/gateway/node-client.js';

type Wire = Record<string, unknown>;

/** A node whose lists answer cursors over `lists` (by kind), `per` items a pull. */
function fakeNode(lists: Record<string, Wire[]>, per = 2) {
  const at: Record<string, number> = {};
  const closed: string[] = [];
  const node = {
    query: async (msg: { op: string; kind?: string; cursor?: string }) => {
      if (msg.op === 'list') {
        at[msg.kind!] = 0;
        return { cursor: msg.kind, meta: { pagination: { limit: 'x', offset: 0 }, filterableFields: ['name'] } };
      }
      if (msg.op === 'listClose') return void closed.push(msg.cursor!);
      const items = lists[msg.cursor!];
      const from = at[msg.cursor!];
      at[msg.cursor!] = from + per;
      const chunk = items.slice(from, from + per);
      return { items: chunk.map((i) => JSON.stringify(i)).join(','), done: from + per >= items.length, total: Math.min(from + per, items.length) };
    },
  };
  return { node: node as unknown as NodeClient, closed };
}

function fakeCtx(): Context & { body: unknown } {
  return { status: 0, body: undefined, set: () => undefined } as unknown as Context & { body: unknown };
}

async function read(body: Readable): Promise<string> {
  let text = '';
  for await (const chunk of body) text += String(chunk);
  return text;
}

const byName = (a: Wire, b: Wire) => String(a.name).localeCompare(String(b.name));
const named = (kind: string, names: string[]) => names.map((name, i) => ({ id: `${kind}-${i}`, name }));

describe('item-stream', () => {
  const lists = { a: named('a', ['b', 'd', 'd', 'k', 'z']), b: named('b', ['a', 'd', 'e', 'f', 'g', 'h', 'y']) };

  it('merges ordered lists into the order a stable sort of them end to end gives, from an offset', async () => {
    const { node, closed } = fakeNode(lists);
    const kinds = await openLists(node, ['a', 'b'].map((kind) => ({ op: 'list' as const, kind: kind as never })));
    const counted = { n: 0 };
    const ctx = fakeCtx();
    const items = pageItems(mergeInOrder(kinds.map((k) => k.batches), byName), 3, (w) => w, counted);
    sendItemStream(ctx, items, () => `],"meta":{"total":${kinds[0].total() + kinds[1].total()}}}`, kinds);
    const whole = [...lists.a, ...lists.b].sort(byName).slice(3);
    assert.equal(await read(ctx.body as Readable), `{"data":[${whole.map((w) => JSON.stringify(w)).join(',')}],"meta":{"total":12}}`);
    assert.equal(counted.n, whole.length);
    assert.deepEqual(closed, [], 'cursors read to their end need no close');
    // The same bytes as the envelope of the list built whole (here with a meta of our own).
    const built = fakeCtx();
    sendData(built, whole);
    assert.ok(String(built.body).startsWith(`{"data":${JSON.stringify(whole)}`));
  });

  it('closes every cursor when the answer ends before its first item was asked for', async () => {
    const { node, closed } = fakeNode(lists);
    const kinds = await openLists(node, ['a', 'b'].map((kind) => ({ op: 'list' as const, kind: kind as never })));
    const ctx = fakeCtx();
    sendItemStream(ctx, mergeInOrder(kinds.map((k) => k.batches), byName), () => ']}', kinds);
    (ctx.body as Readable).destroy();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(closed.sort(), ['a', 'b']);
  });

  it('closes the cursors still open when the client goes away part way', async () => {
    const { node, closed } = fakeNode({ a: named('a', ['a', 'b']), b: named('b', Array.from({ length: 40 }, (_, i) => `c${String(i).padStart(2, '0')}`)) });
    const kinds = await openLists(node, ['a', 'b'].map((kind) => ({ op: 'list' as const, kind: kind as never })));
    const ctx = fakeCtx();
    sendItemStream(ctx, mergeInOrder(kinds.map((k) => k.batches), byName), () => ']}', kinds);
    const body = ctx.body as Readable;
    let pieces = 0;
    for await (const _ of body) if (++pieces === 4) break; // breaking out destroys the body
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(closed, ['b'], 'list a was read to its end; b is closed');
  });

  it('closes the lists already opened when another is refused', async () => {
    const { node, closed } = fakeNode(lists);
    const refusing = { query: (msg: { op: string; kind?: string }) => (msg.kind === 'b' ? Promise.reject(new Error('bad filter')) : node.query(msg as never)) } as unknown as NodeClient;
    await assert.rejects(openLists(refusing, ['a', 'b'].map((kind) => ({ op: 'list' as const, kind: kind as never }))), /bad filter/);
    assert.deepEqual(closed, ['a']);
  });
});
