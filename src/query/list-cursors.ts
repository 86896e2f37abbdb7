// Open cursors of unpaged lists (`limit=-1`, `limit none`): the gateway pulls an answer chunk by
// chunk, each one bounded in time and size, so no list builds its whole answer in memory or
// holds the event loop longer than a slice. Node memory only; a cursor nobody pulls expires.

import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Entity } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import type { ListChunk } from '../protocol/v1/query-messages.js';
import { TICK } from '../store/sorted-runs.js';
import { SLICE_MS } from '../store/time-slicer.js';

export type { ListChunk };

/** Limits of the cursors (defaults in CURSOR_DEFAULTS). */
export interface CursorOptions {
  /** Work one pull does before it answers, in ms. */
  sliceMs: number;
  /** JSON characters after which a pull answers. */
  chunkChars: number;
  /** Cursors open at once; one more is refused with 503 until one ends. */
  maxOpen: number;
  /** A cursor not pulled for this long is closed (ms). */
  idleMs: number;
}

/** A pull's work matches the integrity check's time slice (SLICE_MS): a request waits behind at
 * most one. */
export const CURSOR_DEFAULTS: CursorOptions = { sliceMs: SLICE_MS, chunkChars: 256 * 1024, maxOpen: 32, idleMs: 30_000 };

/** Records presented together (one presentAll call). The last batch is presented after the
 * slice is used up, so it stays small: 16 identities take about 1 ms. */
const PRESENT_BATCH = 16;

/** Turns stored records (or whatever a cursor's source yields) into the wire shape the list
 * answers with. */
export type PresentRecords<T = Entity> = (records: T[]) => Promise<unknown[]>;

interface Cursor {
  source: AsyncIterator<unknown>;
  present: PresentRecords<unknown>;
  /** Matches still to skip (the request's offset). */
  skip: number;
  total: number;
  busy: boolean;
  lastPull: number;
}

export class ListCursors {
  private readonly cursors = new Map<string, Cursor>();
  private sweeper?: NodeJS.Timeout;
  private readonly opts: CursorOptions;

  constructor(opts: Partial<CursorOptions> = {}) {
    this.opts = { ...CURSOR_DEFAULTS, ...opts };
  }

  /** Opens a cursor over `source` (matches in final order; TICK marks a point where a pull may
   * answer) and returns its id. */
  open<T = Entity>(source: AsyncIterable<T | typeof TICK>, present: PresentRecords<T>, offset: number): string {
    this.sweep();
    if (this.cursors.size >= this.opts.maxOpen) {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: 'TOO_MANY_UNPAGED_LISTS', message: `at most ${this.opts.maxOpen} unpaged lists run at once; try again later or page the list` });
    }
    const id = randomUUID();
    this.cursors.set(id, { source: source[Symbol.asyncIterator](), present: present as PresentRecords<unknown>, skip: offset, total: 0, busy: false, lastPull: Date.now() });
    this.sweeper ??= setInterval(() => this.sweep(), this.opts.idleMs).unref();
    return id;
  }

  /** The next chunk of a cursor, after one turn of the event loop (requests queued behind the
   * previous chunk go first). The cursor closes itself once done. */
  async next(id: string): Promise<ListChunk> {
    const cursor = this.cursors.get(id);
    if (!cursor || cursor.busy) throw new ApiError('NOT_FOUND', { code: 'CURSOR_NOT_FOUND', message: 'the list cursor is unknown, busy or expired' });
    cursor.busy = true;
    try {
      await nextTurn();
      return await this.pull(id, cursor);
    } catch (err) {
      this.close(id);
      throw err;
    } finally {
      cursor.busy = false;
      cursor.lastPull = Date.now();
    }
  }

  private async pull(id: string, cursor: Cursor): Promise<ListChunk> {
    const started = performance.now();
    const parts: string[] = [];
    let chars = 0;
    let batch: unknown[] = [];
    const flush = async () => {
      for (const wire of await cursor.present(batch)) {
        const json = JSON.stringify(wire);
        parts.push(json);
        chars += json.length;
      }
      batch = [];
    };
    for (;;) {
      const step = await cursor.source.next();
      if (step.done) {
        await flush();
        this.close(id);
        return { items: parts.join(','), done: true, total: cursor.total };
      }
      if (step.value !== TICK) {
        cursor.total++;
        if (cursor.skip > 0) cursor.skip--;
        else batch.push(step.value);
        if (batch.length >= PRESENT_BATCH) await flush();
      }
      if (chars >= this.opts.chunkChars || performance.now() - started >= this.opts.sliceMs) {
        await flush();
        return { items: parts.join(','), done: false, total: cursor.total };
      }
    }
  }

  /** Ends a cursor early (the client went away); closes its store iterators. */
  close(id: string): void {
    const cursor = this.cursors.get(id);
    if (!cursor) return;
    this.cursors.delete(id);
    void cursor.source.return?.().catch(() => undefined);
    if (this.cursors.size === 0) this.stopSweeper();
  }

  /** Closes every cursor (node shutdown). */
  closeAll(): void {
    for (const id of [...this.cursors.keys()]) this.close(id);
    this.stopSweeper();
  }

  /** How many cursors are open (for tests and metrics). */
  get size(): number {
    return this.cursors.size;
  }

  private sweep(): void {
    const oldest = Date.now() - this.opts.idleMs;
    for (const [id, cursor] of this.cursors) if (!cursor.busy && cursor.lastPull < oldest) this.close(id);
  }

  private stopSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
