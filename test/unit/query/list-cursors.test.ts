import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListCursors } from '../../../src/query/list-cursors.js';
import type { Entity } from '../../../src/domain/commands.js';
import { ApiError } from '../../../src/errors.js';
import { TICK } from '../../../src/store/sorted-runs.js';

const records = (n: number): Entity[] => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }) as Entity);
const present = async (batch: Entity[]) => batch.map((r) => ({ id: r.id, shown: true }));

async function* source(items: (Entity | typeof TICK)[], closed?: { value: boolean }): AsyncGenerator<Entity | typeof TICK> {
  try {
    yield* items;
  } finally {
    if (closed) closed.value = true;
  }
}

async function drain(cursors: ListCursors, id: string): Promise<{ items: unknown[]; chunks: number; total: number }> {
  const items: unknown[] = [];
  for (let chunks = 1; ; chunks++) {
    const chunk = await cursors.next(id);
    if (chunk.items) items.push(...(JSON.parse(`[${chunk.items}]`) as unknown[]));
    if (chunk.done) return { items, chunks, total: chunk.total };
  }
}

describe('ListCursors', () => {
  it('answers every item, presented, in chunks that end once the chunk size is reached', async () => {
    // Records are presented 16 at a time: a chunk ends after the batch that reached the size
    // (16 items are over 200 characters), so 300 records take ceil(300 / 16) chunks.
    const cursors = new ListCursors({ chunkChars: 200, sliceMs: 60_000 });
    const id = cursors.open(source(records(300)), present, 0);
    const { items, chunks, total } = await drain(cursors, id);
    assert.deepEqual(items, records(300).map((r) => ({ id: r.id, shown: true })));
    assert.equal(total, 300);
    assert.equal(chunks, 19);
    assert.equal(cursors.size, 0);
  });

  it('skips the offset but counts it in the total; ticks are not items', async () => {
    const cursors = new ListCursors();
    const id = cursors.open(source([TICK, ...records(10), TICK]), present, 4);
    const { items, total } = await drain(cursors, id);
    assert.deepEqual(items.map((i) => (i as Entity).id), ['r4', 'r5', 'r6', 'r7', 'r8', 'r9']);
    assert.equal(total, 10);
  });

  it('close() ends the source (its store iterators) and forgets the cursor', async () => {
    const cursors = new ListCursors({ chunkChars: 10 });
    const closed = { value: false };
    const id = cursors.open(source(records(50), closed), present, 0);
    await cursors.next(id);
    cursors.close(id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed.value, true);
    await assert.rejects(cursors.next(id), (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
  });

  it('refuses a cursor beyond the open limit with 503', () => {
    const cursors = new ListCursors({ maxOpen: 2 });
    cursors.open(source(records(1)), present, 0);
    cursors.open(source(records(1)), present, 0);
    assert.throws(() => cursors.open(source(records(1)), present, 0), (err: unknown) => err instanceof ApiError && err.code === 'SERVICE_UNAVAILABLE');
    cursors.closeAll();
    assert.equal(cursors.size, 0);
  });
});
