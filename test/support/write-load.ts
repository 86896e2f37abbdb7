// Test support for the cluster's fault tests: a bounded write load (concurrent creates) that
// records every outcome, probes of how soon a node takes writes again, and the checks that no
// acknowledged write was lost and no write answered as failed was committed.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFrom, sizeOf } from './logged-process.js';
import type { ApiClient } from './test-node.js';

/** One create of the load: its name, when it started, how long it took, what came back. */
export interface WriteOutcome {
  name: string;
  startedAt: number;
  ms: number;
  status?: number;
  /** The error's cause code, when the answer is an error (e.g. OUTCOME_UNKNOWN). */
  code?: string;
  id?: string;
  /** A network error or timeout: no answer, the outcome is unknown. */
  error?: string;
}

export interface WriteLoad {
  /** Stops the writers and resolves to every outcome once the requests in flight ended. */
  stop(): Promise<WriteOutcome[]>;
  /** The outcomes so far (while the load runs: to wait for its progress). */
  seen(): readonly WriteOutcome[];
}

/** Options of startWriteLoad. */
export interface WriteLoadOptions {
  writers?: number;
  /** Names are `<prefix>-<writer>-<n>`. */
  prefix: string;
  /** Per request (default 20 s). */
  timeoutMs?: number;
}

/** `writers` loops of POST /identities through `api` (called per request) until stopped. */
export function startWriteLoad(api: () => ApiClient, token: string, opts: WriteLoadOptions): WriteLoad {
  const outcomes: WriteOutcome[] = [];
  let stopped = false;
  const writer = async (w: number) => {
    for (let n = 0; !stopped; n++) {
      const name = `${opts.prefix}-${w}-${n}`;
      const startedAt = Date.now();
      const outcome: WriteOutcome = { name, startedAt, ms: 0 };
      try {
        const res = await api().request('POST', '/identities', { body: { name, type: 'User', isAdmin: false }, token, timeoutMs: opts.timeoutMs ?? 20_000 });
        outcome.status = res.status;
        if (res.status === 201) outcome.id = res.body?.data?.id;
        else if (typeof res.body?.error?.cause?.code === 'string') outcome.code = res.body.error.cause.code;
      } catch (err) {
        outcome.error = (err as Error).message;
      }
      outcome.ms = Date.now() - startedAt;
      outcomes.push(outcome);
      if (outcome.status !== 201) await sleep(50); // no hot loop while nothing answers
    }
  };
  const running = Array.from({ length: opts.writers ?? 8 }, (_, w) => writer(w));
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
      return outcomes;
    },
    seen: () => outcomes,
  };
}

/** Ids of the creates answered 201. */
export function acknowledged(outcomes: WriteOutcome[]): string[] {
  return outcomes.filter((o) => o.status === 201 && o.id).map((o) => o.id!);
}

/** A one-line account of a load: counts per status, unknown outcomes, slowest answer. */
export function describeLoad(outcomes: WriteOutcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    counts.set(statusKey(o), (counts.get(statusKey(o)) ?? 0) + 1);
  }
  const slowest = Math.max(0, ...outcomes.map((o) => o.ms));
  return `${outcomes.length} creates: ${[...counts].map(([k, v]) => `${k}×${v}`).join(', ')}; slowest ${slowest} ms`;
}

/** An account of the answers around a fault at `since`: the writes on their way at that moment
 * and those sent after it, each with counts per status and the latest answer counted from `since`. */
export function describeAfter(outcomes: WriteOutcome[], since: number): string {
  const part = (label: string, some: WriteOutcome[]) => {
    const counts = new Map<string, number>();
    for (const o of some) {
      counts.set(statusKey(o), (counts.get(statusKey(o)) ?? 0) + 1);
    }
    const latest = Math.max(0, ...some.map((o) => o.startedAt + o.ms - since));
    return `${label} ${some.length} (${[...counts].map(([k, v]) => `${k}×${v}`).join(', ') || 'none'}; last answered ${latest} ms after it)`;
  };
  const onTheirWay = outcomes.filter((o) => o.startedAt < since && o.startedAt + o.ms >= since);
  const after = outcomes.filter((o) => o.startedAt >= since);
  return `${part('on their way at the fault', onTheirWay)}, ${part('sent after it', after)}`;
}

/** Asserts every id answers 200 on `api` (GET /identities/:id, 8 at a time). */
export async function assertAllReadable(api: ApiClient, token: string, ids: string[], where: string): Promise<void> {
  const missing: string[] = [];
  const queue = [...ids];
  const reader = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const res = await api.request('GET', `/identities/${id}`, { token, timeoutMs: 10_000 });
      if (res.status !== 200) missing.push(`${id} → ${res.status} ${res.text.slice(0, 120)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  assert.equal(missing.length, 0, `${missing.length} of ${ids.length} acknowledged creates are not readable on ${where}:\n${missing.slice(0, 10).join('\n')}`);
}

/** Asserts no identity of these writes' names exists: a write answered as failed must not have committed. */
export async function assertNoneCommitted(api: ApiClient, token: string, writes: { name: string; status?: number }[], where: string): Promise<void> {
  const committed: string[] = [];
  for (const { name, status } of writes) {
    const filter = encodeURIComponent(`name="${name}"`);
    const res = await api.request('GET', `/identities?filter=${filter}`, { token, timeoutMs: 10_000 });
    assert.equal(res.status, 200, res.text);
    if (res.body.data.length > 0) committed.push(`${name} (answered ${status})`);
  }
  assert.equal(committed.length, 0, `${committed.length} of ${writes.length} writes answered as failed were committed (seen on ${where}): ${committed.slice(0, 10).join(', ')}`);
}

/** The creates answered with anything but 201, except 504 OUTCOME_UNKNOWN ("may have been
 * stored"): the API said they failed. (Every name of a load is new, so even a 400 "duplicate
 * name" is a failure answer.) */
export function failedByAnswer(outcomes: WriteOutcome[]): WriteOutcome[] {
  return outcomes.filter((o) => o.status !== undefined && o.status !== 201 && !isOutcomeUnknown(o));
}

/**
 * Sends again, as a client told OUTCOME_UNKNOWN would, each of these creates: the second create
 * is stored (the first was not) or refused for its name (the first was), and either way exactly
 * one identity has the name afterwards, never two.
 */
export async function assertRetriesSafe(api: ApiClient, token: string, unknowns: WriteOutcome[], where: string): Promise<void> {
  const problems: string[] = [];
  for (const { name } of unknowns) {
    const again = await api.request('POST', '/identities', { body: { name, type: 'User', isAdmin: false }, token, timeoutMs: 10_000 });
    if (again.status !== 201 && !(again.status === 400 && /name/i.test(again.text))) problems.push(`${name}: sent again → ${again.status} ${again.text.slice(0, 120)}`);
    const filter = encodeURIComponent(`name="${name}"`);
    const res = await api.request('GET', `/identities?filter=${filter}`, { token, timeoutMs: 10_000 });
    if (res.status !== 200 || res.body.data.length !== 1) problems.push(`${name}: ${res.status === 200 ? res.body.data.length : res.status} identities after sending it again (answered ${again.status})`);
  }
  assert.equal(problems.length, 0, `creates answered OUTCOME_UNKNOWN and sent again on ${where}:\n${problems.slice(0, 10).join('\n')}`);
}

/** The answer said the write may or may not have been stored. */
export function isOutcomeUnknown(o: WriteOutcome): boolean {
  return o.status === 504 && o.code === 'OUTCOME_UNKNOWN';
}

function statusKey(o: WriteOutcome): string {
  if (o.status === undefined) return 'no answer';
  return isOutcomeUnknown(o) ? '504 OUTCOME_UNKNOWN' : String(o.status);
}

/** Writes sent at or after `since` (a kill) whose answer took more than `limitMs`. */
export function lateAnswers(outcomes: WriteOutcome[], since: number, limitMs: number, graceMs = 0): string[] {
  // Writes already on their way at the fault (or sent within `graceMs` of it) are not counted:
  // their answer waits, truthfully, until the log tells whether they were stored (after
  // JetStream's leader election or the command's expiry), which can take longer than the limit.
  // Every write sent after that counts.
  return outcomes
    .filter((o) => o.status !== undefined && o.startedAt >= since + graceMs && o.ms > limitMs)
    .map((o) => `${o.name}: ${o.status} after ${o.ms} ms, ${o.startedAt + o.ms - since} ms after the kill`);
}

/** How soon a node answers a write once its request reached it, also while a node or a NATS
 * server fails (docs/architecture.md, "Answers within 5 s"): the bound the fault tests check. */
export const ANSWER_BOUND_MS = 5_000;
/** What the tests allow on top at the node: its timers and its access log run late on a loaded
 * two-core machine. */
const NODE_MARGIN_MS = 500;
/** What the tests allow on top at the client: the balancer's retry after a node's port closed
 * (HAProxy waits 1 s, its connect timeout, before it tries again) and the way there and back. */
const BALANCER_MARGIN_MS = 1_500;

/** One identity write (POST, PATCH, DELETE) as a node's access log tells it: `ms` counts from
 * when the request reached the node until its answer. */
export interface NodeWrite {
  node: string;
  method: string;
  route: string;
  status?: number;
  ms: number;
  time?: string;
  requestId?: string;
}

/** The identity writes in the access log lines of `logs` (each node's name and what it wrote). */
export function nodeWrites(logs: Array<{ name: string; text: string }>): NodeWrite[] {
  const writes: NodeWrite[] = [];
  for (const { name, text } of logs) {
    for (const line of text.split('\n')) {
      if (!line.includes('"msg":"request"')) continue;
      let entry: { method?: string; route?: string; status?: number; ms?: number; time?: string; requestId?: string };
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // a line cut by a kill
      }
      if (!/^(POST|PATCH|DELETE)$/.test(entry.method ?? '') || !/\/identities(\/:id)?$/.test(entry.route ?? '')) continue;
      writes.push({ node: name, method: entry.method!, route: entry.route!, status: entry.status, ms: entry.ms ?? 0, time: entry.time, requestId: entry.requestId });
    }
  }
  return writes;
}

/** Marks where each node's stdout ends now; the function returned reads what each wrote since
 * (for boundProblems). */
export function markLogs(nodes: ReadonlyArray<{ name: string; outPath: string }>): () => Array<{ name: string; text: string }> {
  const marks = nodes.map((node) => ({ node, at: sizeOf(node.outPath) }));
  return () => marks.map(({ node, at }) => ({ name: node.name, text: readFrom(node.outPath, at) }));
}

/** Answered writes of a load whose answer took longer than ANSWER_BOUND_MS plus the balancer
 * margin at the client. */
export function lateAtClient(outcomes: WriteOutcome[]): string[] {
  return outcomes
    .filter((o) => o.status !== undefined && o.ms > ANSWER_BOUND_MS + BALANCER_MARGIN_MS)
    .map((o) => `${o.name}: ${o.status}${o.code ? ` ${o.code}` : ''} after ${o.ms} ms`);
}

/** The writes answered later than the bound, at the nodes (from the access logs in `logs`, see
 * markLogs) and at the client (the load's outcomes), as problems to report. */
export function boundProblems(outcomes: WriteOutcome[], logs: Array<{ name: string; text: string }>): string[] {
  const problems: string[] = [];
  const writes = nodeWrites(logs);
  if (writes.length === 0) problems.push('no identity write found in the nodes\' access logs: the bound was not checked');
  const late = writes.filter((w) => w.ms > ANSWER_BOUND_MS + NODE_MARGIN_MS);
  if (late.length > 0) {
    const shown = late.slice(0, 5).map((w) => `${w.node}: ${w.method} ${w.route} ${w.status} after ${w.ms} ms (at ${w.time}, ${w.requestId})`);
    problems.push(`${late.length} writes were answered more than ${ANSWER_BOUND_MS} ms after they reached a node: ${shown.join('; ')}`);
  }
  const atClient = lateAtClient(outcomes);
  if (atClient.length > 0) problems.push(`${atClient.length} writes through the balancer were answered later than ${ANSWER_BOUND_MS + BALANCER_MARGIN_MS} ms: ${atClient.slice(0, 5).join('; ')}`);
  return problems;
}

/** The slowest identity write at the nodes, for the test's account. */
export function describeNodeWrites(logs: Array<{ name: string; text: string }>): string {
  const writes = nodeWrites(logs);
  return `${writes.length} writes at the nodes, slowest ${Math.max(0, ...writes.map((w) => w.ms))} ms`;
}

/** Runs a check and returns its failure message instead of throwing (to report every problem of a run at once). */
export async function problemOf(check: () => unknown): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What probeWrites saw on one node. */
export interface ProbeResult {
  /** Milliseconds from `since` until every probe write had succeeded (undefined: not within the limit). */
  resumedMs?: number;
  /** The slowest single answer (an unanswered request counts as its timeout). */
  slowestMs: number;
  /** Requests that got no answer within `answerMs`. */
  unanswered: number;
  /** Statuses seen, e.g. { 200: 12, 503: 4 }. */
  statuses: Record<string, number>;
}

/**
 * From `since` (e.g. the moment of a kill), retries until each write has succeeded once: a
 * PATCH of every id in `ids` (entities spread over shards) and two creates. Every request may
 * take at most `answerMs`; gives up `limitMs` after `since`.
 */
export async function probeWrites(api: ApiClient, token: string, ids: string[], since: number, limitMs: number, answerMs = 5_000): Promise<ProbeResult> {
  const tag = randomBytes(3).toString('hex');
  const pending = new Map<string, () => Promise<number>>();
  for (const id of ids) {
    pending.set(`patch ${id}`, async () => (await api.request('PATCH', `/identities/${id}`, { body: { tags: { probe: tag } }, token, timeoutMs: answerMs })).status);
  }
  for (const n of [1, 2]) {
    const name = `probe-${tag}-${n}`;
    let uncertain = false; // an earlier attempt may have committed
    pending.set(`create ${name}`, async () => {
      try {
        const res = await api.request('POST', '/identities', { body: { name, type: 'User', isAdmin: false }, token, timeoutMs: answerMs });
        if (res.status === 400 && uncertain && /name/i.test(res.text)) return 201; // found its own earlier create
        if (res.status >= 500) uncertain = true;
        return res.status;
      } catch (err) {
        uncertain = true;
        throw err;
      }
    });
  }
  const result: ProbeResult = { slowestMs: 0, unanswered: 0, statuses: {} };
  while (pending.size > 0 && Date.now() - since < limitMs) {
    await Promise.all(
      [...pending].map(async ([key, send]) => {
        const started = Date.now();
        let status: number | undefined;
        try {
          status = await send();
        } catch {
          result.unanswered++;
        }
        result.slowestMs = Math.max(result.slowestMs, Date.now() - started);
        const label = status === undefined ? 'no answer' : String(status);
        result.statuses[label] = (result.statuses[label] ?? 0) + 1;
        if (status === 200 || status === 201) pending.delete(key);
      }),
    );
    if (pending.size > 0) await sleep(100);
  }
  if (pending.size === 0) result.resumedMs = Date.now() - since;
  return result;
}

/** Creates `count` identities (to PATCH in probes) and returns their ids. */
export async function createProbeTargets(api: ApiClient, token: string, count: number): Promise<string[]> {
  const prefix = `target-${randomBytes(3).toString('hex')}`;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post('/identities', { name: `${prefix}-${i}`, type: 'Device', isAdmin: false }, token);
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.data.id);
  }
  return ids;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
