// Sliding API-session lifetime: records activity in memory, flushes it to the log in batches
// (so every node sees it), deletes sessions idle longer than the timeout, and versions what a
// token resolves to (for the gateway's memory of resolved sessions).

import { recordFingerprint, sessionBookkeepingOnly, type Entity, type Op } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import type { AppliedEvent, Replica } from '../store/replica.js';
import type { Proposer } from './proposer.js';

const BATCH = 500;

export interface SessionKeeperOptions {
  timeoutMinutes: number;
  /** How often local activity is written to the log (ms). */
  flushEveryMs?: number;
  /** How often idle sessions are looked for (ms). */
  sweepEveryMs?: number;
}

export class SessionKeeper {
  private readonly activity = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private resolutions = 0;

  constructor(
    private readonly replica: Replica,
    private readonly proposer: Proposer,
    private readonly opts: SessionKeeperOptions,
  ) {
    replica.events.on('applied', (event: AppliedEvent) => {
      if (!sessionBookkeepingOnly(event.command)) this.resolutions++;
    });
  }

  /** Moves with every applied command that may change how a session token resolves (anything
   * but logins and activity flushes: new sessions change no existing one, and activity only
   * moves expiry later), for callers that keep resolutions. */
  get resolutionVersion(): number {
    return this.resolutions;
  }

  get timeoutMs(): number {
    return this.opts.timeoutMinutes * 60_000;
  }

  start(onError: (err: unknown) => void): void {
    const every = (ms: number, job: () => Promise<void>) => {
      const timer = setInterval(() => job().catch(onError), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.opts.flushEveryMs ?? 30_000, () => this.flush());
    every(this.opts.sweepEveryMs ?? 30_000, () => this.sweep());
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.flush();
  }

  touch(sessionId: string, now = Date.now()): void {
    this.activity.set(sessionId, now);
    this.dirty.add(sessionId);
  }

  /** The later of the replicated and the locally seen activity. */
  lastActivity(session: Entity): number {
    return Math.max(this.activity.get(session.id) ?? 0, replicatedActivity(session));
  }

  expiresAt(session: Entity): number {
    return this.lastActivity(session) + this.timeoutMs;
  }

  isExpired(session: Entity, now = Date.now()): boolean {
    return this.expiresAt(session) <= now;
  }

  /** Writes batched activity so other nodes (and restarts) see it. */
  async flush(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    for (let i = 0; i < ids.length; i += BATCH) {
      const ops: Op[] = ids.slice(i, i + BATCH).map((id) => ({
        op: 'set',
        kind: 'api-sessions',
        id,
        fields: { lastActivityAt: new Date(this.activity.get(id) ?? Date.now()).toISOString() },
        ifExists: true,
      }));
      await this.proposer.propose(ops);
    }
  }

  /** Deletes sessions whose last activity is older than the timeout. */
  async sweep(now = Date.now()): Promise<void> {
    const cutoff = new Date(now - this.timeoutMs).toISOString();
    let ids: string[] = [];
    for await (const id of this.replica.idsBelow('api-sessions', 'lastActivityAt', cutoff)) {
      if ((this.activity.get(id) ?? 0) > now - this.timeoutMs) continue;
      ids.push(id);
      if (ids.length >= BATCH) {
        await this.deleteIdle(ids, now);
        ids = [];
      }
    }
    if (ids.length > 0) await this.deleteIdle(ids, now);
  }

  /** Deletes the sessions still idle as read now, each op expecting the record it read: when
   * another node flushed activity of one meanwhile, apply refuses the batch (STALE_WRITE) and
   * each is proposed alone, so only the active ones stay. */
  private async deleteIdle(ids: string[], now: number): Promise<void> {
    const ops: Op[] = [];
    for (const session of await this.replica.getMany('api-sessions', ids)) {
      if (!session || replicatedActivity(session) > now - this.timeoutMs) continue;
      this.activity.delete(session.id);
      ops.push({ op: 'delete', kind: 'api-sessions', id: session.id, ifExists: true, expect: recordFingerprint(session) });
    }
    if (ops.length === 0 || (await proposeUnlessStale(this.proposer, ops)) || ops.length === 1) return;
    for (const op of ops) await proposeUnlessStale(this.proposer, [op]);
  }

  forget(sessionId: string): void {
    this.activity.delete(sessionId);
    this.dirty.delete(sessionId);
  }
}

/** Proposes the ops; false when apply refused them as stale. */
async function proposeUnlessStale(proposer: Proposer, ops: Op[]): Promise<boolean> {
  try {
    await proposer.propose(ops);
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'STALE_WRITE') return false;
    throw err;
  }
}

/** Parsed replicated activity times, by record object (the replica hands out the same frozen
 * record until it changes, so each version is parsed once). */
const parsedActivity = new WeakMap<Entity, number>();

function replicatedActivity(session: Entity): number {
  let at = parsedActivity.get(session);
  if (at === undefined) {
    at = Date.parse(String(session.lastActivityAt ?? session.createdAt));
    parsedActivity.set(session, at);
  }
  return at;
}
