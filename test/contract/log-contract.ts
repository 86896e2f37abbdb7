// The Log contract suite: LocalLog, MemoryLog and JetStreamLog run these same tests — gap-free
// sequencing under concurrency, replay then live follow, awaited handlers, entry times, trim.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Log, LogEntry } from '../../src/log/log.js';

/** A log as the suite drives it: the Log contract, plus trimBefore() where the log has it. */
export type TrimmableLog = Log<unknown> & { trimBefore?(seq: number): Promise<void> };

/** Builds a fresh, empty, not yet opened log; cleanup() removes whatever it left behind. */
export type LogFactory = () => Promise<{ log: TrimmableLog; cleanup(): Promise<void> }>;

/** What a log offers beyond the Log interface; the tests of a capability run only with it. */
export interface LogCapabilities {
  /** trimBefore(seq) deletes older entries, and follow() from a trimmed point throws at once. */
  trim: boolean;
  /** Delivered entries carry timeMs, the time the log stored them (else it is left undefined). */
  entryTimes: boolean;
}

type Subscription = { close(): Promise<void>; done?: Promise<void> };

async function withLog(factory: LogFactory, body: (log: TrimmableLog) => Promise<void>): Promise<void> {
  const { log, cleanup } = await factory();
  await log.open();
  try {
    await body(log);
  } finally {
    await log.close();
    await cleanup();
  }
}

/** Polls until `cond` holds, failing after `ms`. */
export async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** An entry without its optional time, to compare with entries(). */
const plain = (entry: LogEntry): LogEntry => ({ seq: entry.seq, command: entry.command });

/** Follows from afterSeq, recording every delivered entry (without its time). */
function record(log: Log<unknown>, afterSeq: number): { seen: LogEntry[]; sub: Subscription } {
  const seen: LogEntry[] = [];
  const sub = log.follow(afterSeq, async (entry) => {
    seen.push(plain(entry));
  });
  return { seen, sub };
}

const cmd = (i: number): { op: string; i: number } => ({ op: 'put', i });
const entries = (from: number, to: number): LogEntry[] =>
  Array.from({ length: to - from + 1 }, (_, k) => ({ seq: from + k, command: cmd(from + k) }));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the contract tests, each named `${name} - ...`. */
export function runLogContract(name: string, factory: LogFactory, capabilities: LogCapabilities = { trim: true, entryTimes: false }): void {
  const it = (title: string, body: (log: TrimmableLog) => Promise<void>): void => {
    test(`${name} - ${title}`, () => withLog(factory, body));
  };

  it('an empty log has lastSeq 0; appends get 1, 2, 3', async (log) => {
    assert.equal(await log.lastSeq(), 0);
    assert.equal(await log.append(cmd(1)), 1);
    assert.equal(await log.append(cmd(2)), 2);
    assert.equal(await log.append(cmd(3)), 3);
    assert.equal(await log.lastSeq(), 3);
  });

  it('500 concurrent appends get distinct, gap-free seqs in call order', async (log) => {
    const seqs = await Promise.all(Array.from({ length: 500 }, (_, i) => log.append(cmd(i + 1))));
    assert.deepEqual(seqs, Array.from({ length: 500 }, (_, i) => i + 1));
    assert.equal(await log.lastSeq(), 500);
    const { seen, sub } = record(log, 0);
    await waitFor(() => seen.length === 500, '500 entries');
    await sub.close();
    assert.deepEqual(seen, entries(1, 500));
  });

  it('each append resolves only when lastSeq has reached its seq', async (log) => {
    const checks = Array.from({ length: 50 }, async (_, i) => {
      const seq = await log.append(cmd(i + 1));
      assert.ok((await log.lastSeq()) >= seq);
    });
    await Promise.all(checks);
  });

  it('follow from 0 replays everything; from the middle replays the rest', async (log) => {
    for (let i = 1; i <= 20; i++) await log.append(cmd(i));
    const all = record(log, 0);
    const tail = record(log, 12);
    const none = record(log, 20);
    await waitFor(() => all.seen.length === 20 && tail.seen.length === 8, 'replay');
    await sleep(10);
    assert.deepEqual(all.seen, entries(1, 20));
    assert.deepEqual(tail.seen, entries(13, 20));
    assert.deepEqual(none.seen, []);
    await Promise.all([all.sub.close(), tail.sub.close(), none.sub.close()]);
  });

  it('a follower sees later appends, in order, after the replay', async (log) => {
    await log.append(cmd(1));
    const { seen, sub } = record(log, 0);
    await waitFor(() => seen.length === 1, 'replay');
    for (let i = 2; i <= 5; i++) await log.append(cmd(i));
    await Promise.all(Array.from({ length: 45 }, (_, i) => log.append(cmd(i + 6))));
    await waitFor(() => seen.length === 50, 'live entries');
    assert.deepEqual(seen, entries(1, 50));
    await sub.close();
  });

  it('follow past lastSeq waits for that seq', async (log) => {
    const { seen, sub } = record(log, 3);
    for (let i = 1; i <= 5; i++) await log.append(cmd(i));
    await waitFor(() => seen.length === 2, 'entries 4 and 5');
    assert.deepEqual(seen, entries(4, 5));
    await sub.close();
  });

  it('two followers each get every entry', async (log) => {
    const a = record(log, 0);
    await Promise.all(Array.from({ length: 30 }, (_, i) => log.append(cmd(i + 1))));
    const b = record(log, 0);
    await Promise.all(Array.from({ length: 30 }, (_, i) => log.append(cmd(i + 31))));
    await waitFor(() => a.seen.length === 60 && b.seen.length === 60, 'both followers');
    assert.deepEqual(a.seen, entries(1, 60));
    assert.deepEqual(b.seen, entries(1, 60));
    await Promise.all([a.sub.close(), b.sub.close()]);
  });

  it('the handler is awaited: entries are never delivered concurrently', async (log) => {
    for (let i = 1; i <= 10; i++) await log.append(cmd(i));
    let active = 0;
    let maxActive = 0;
    const seqs: number[] = [];
    const sub = log.follow(0, async (entry) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(Math.random() * 3);
      seqs.push(entry.seq);
      active--;
    });
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(cmd(i + 11))));
    await waitFor(() => seqs.length === 30, '30 entries');
    assert.equal(maxActive, 1);
    assert.deepEqual(seqs, Array.from({ length: 30 }, (_, i) => i + 1));
    await sub.close();
  });

  it('followBatches hands over what is committed in runs of at most maxBatch, in order', async (log) => {
    await Promise.all(Array.from({ length: 25 }, (_, i) => log.append(cmd(i + 1))));
    const runs: number[][] = [];
    let active = 0;
    let maxActive = 0;
    const sub = log.followBatches(0, async (run) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(2);
      runs.push(run.map((entry) => entry.seq));
      assert.deepEqual(run.map(plain), entries(run[0].seq, run[run.length - 1].seq));
      active--;
    }, 4);
    await Promise.all(Array.from({ length: 30 }, (_, i) => log.append(cmd(i + 26))));
    await waitFor(() => runs.flat().length === 55, '55 entries');
    assert.deepEqual(runs.flat(), Array.from({ length: 55 }, (_, i) => i + 1));
    assert.ok(runs.every((run) => run.length >= 1 && run.length <= 4), JSON.stringify(runs));
    assert.ok(runs.some((run) => run.length > 1), 'entries committed together come together');
    assert.equal(maxActive, 1);
    await sub.close();
    assert.throws(() => log.followBatches(0, async () => {}, 0), RangeError);
  });

  it('close() of a follower stops delivery, even from inside its handler', async (log) => {
    const { seen, sub } = record(log, 0);
    await log.append(cmd(1));
    await waitFor(() => seen.length === 1, 'first entry');
    await sub.close();
    await log.append(cmd(2));
    await sleep(20);
    assert.equal(seen.length, 1);
    const inner: number[] = [];
    const self: Subscription = log.follow(0, async (entry) => {
      inner.push(entry.seq);
      await self.close();
    });
    await sleep(20);
    await self.done;
    assert.deepEqual(inner, [1]);
  });

  it('a throwing handler stops its follower and rejects done', async (log) => {
    for (let i = 1; i <= 5; i++) await log.append(cmd(i));
    const seen: number[] = [];
    const sub: Subscription = log.follow(0, async (entry) => {
      seen.push(entry.seq);
      if (entry.seq === 3) throw new Error('boom');
    });
    await assert.rejects(sub.done ?? Promise.reject(new Error('boom')), /boom/);
    await log.append(cmd(6));
    await sleep(10);
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('commands are stored as JSON: later mutation of the original is not seen', async (log) => {
    const original = { op: 'put', i: 1, nested: { a: [1, 2] }, gone: undefined };
    await log.append(original);
    original.nested.a.push(3);
    await assert.rejects(log.append(undefined), TypeError);
    const { seen, sub } = record(log, 0);
    await waitFor(() => seen.length === 1, 'entry');
    assert.deepEqual(seen[0], { seq: 1, command: { op: 'put', i: 1, nested: { a: [1, 2] } } });
    await sub.close();
  });

  const timeRule = capabilities.entryTimes ? 'is a whole epoch ms at which it was appended, never decreasing' : 'is left undefined';
  it(`an entry's timeMs ${timeRule}`, async (log) => {
    const before = Date.now();
    for (let i = 1; i <= 5; i++) await log.append(cmd(i));
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(cmd(i + 6))));
    const after = Date.now();
    const times: (number | undefined)[] = [];
    const sub = log.follow(0, async (entry) => void times.push(entry.timeMs));
    await waitFor(() => times.length === 25, '25 entries');
    await sub.close();
    if (!capabilities.entryTimes) {
      assert.deepEqual(times, Array.from({ length: 25 }, () => undefined));
      return;
    }
    for (const [i, t] of times.entries()) {
      assert.ok(Number.isSafeInteger(t), `entry ${i + 1}: timeMs ${t}`);
      // loose bounds: the log's clock (e.g. nats-server's) is this machine's, read at another moment
      assert.ok(t! >= before - 1000 && t! <= after + 1000, `entry ${i + 1}: timeMs ${t} outside [${before}, ${after}]`);
      if (i > 0) assert.ok(t! >= times[i - 1]!, `entry ${i + 1}: timeMs went back`);
    }
  });

  if (capabilities.trim) it('trimBefore deletes older entries; following from a trimmed point throws', async (log) => {
    if (!log.trimBefore) throw new Error(`${name} claims the trim capability but has no trimBefore()`);
    for (let i = 1; i <= 10; i++) await log.append(cmd(i));
    await log.trimBefore(6);
    assert.equal(await log.lastSeq(), 10);
    assert.throws(() => log.follow(0, async () => {}), /trimmed/);
    assert.throws(() => log.follow(4, async () => {}), /trimmed/);
    const { seen, sub } = record(log, 5);
    await log.append(cmd(11));
    await waitFor(() => seen.length === 6, 'entries 6..11');
    assert.deepEqual(seen, entries(6, 11));
    await sub.close();
    await log.trimBefore(3); // already trimmed: no-op
    await assert.rejects(log.trimBefore(13), RangeError);
    await log.trimBefore(12);
    assert.equal(await log.lastSeq(), 11);
    assert.equal(await log.append(cmd(12)), 12);
  });

  it('close() lets in-flight appends finish, then rejects new ones', async (log) => {
    const pending = Array.from({ length: 100 }, (_, i) => log.append(cmd(i + 1)));
    await log.close();
    assert.deepEqual(await Promise.all(pending), Array.from({ length: 100 }, (_, i) => i + 1));
    await assert.rejects(log.append(cmd(101)));
    await log.open();
    assert.equal(await log.lastSeq(), 100);
  });
}
