// The actor host: serves an actor family's subjects on the bus and routes each message to the
// mailbox of its entity, creating actors on demand and evicting idle stateless ones. A message
// whose write apply refused as stale is handled again from the start (STALE_WRITE_ATTEMPTS).
// A sharded (cluster) host first applies the log as far as the requester had (`seen`), and
// answers with the last sequence the handling appended (CommandReply). A command its requester
// sent again (its first owner was declared gone) is fenced before it is handled.

import type { Bus, Subscription } from '../bus/bus.js';
import { DEFAULT_SHARD_COUNT, kindWildcard, shardOf, shardSubject, type CommandScope } from '../bus/subjects.js';
import { commandReply } from '../bus/command-reply.js';
import { ApiError, toApiError } from '../errors.js';
import { onOwnerClock, readRequestFields } from '../protocol/v1/command-envelope.js';
import { invalidMessage } from '../protocol/v1/message-fields.js';
import { Mailbox } from './mailbox.js';
import { commandContextOf, withCommandContext } from './request-context.js';

/** What travels to an actor: the entity key, the operation and its payload. */
export interface ActorMessage {
  key: string;
  op: string;
  [field: string]: unknown;
}

export interface Actor {
  handle(msg: ActorMessage): Promise<unknown>;
  /** True when the actor holds no volatile state worth keeping in memory. */
  isIdle(): boolean;
}

/** How many times one message is handled when apply keeps refusing its write as stale (409
 * STALE_WRITE: another writer changed an entity the handling read). The last refusal reaches
 * the caller. */
export const STALE_WRITE_ATTEMPTS = 5;

interface Slot {
  actor: Actor;
  mailbox: Mailbox;
}

export interface ActorHostOptions {
  mailboxSize: number;
  /** Messages in all mailboxes of this host together before new ones are refused. */
  maxInFlight?: number;
  /** Which command subjects this host serves (node-scoped while the log is local). */
  scope?: CommandScope;
  /** Told about every message refused with 429 (metrics): a full mailbox or the in-flight bound. */
  onReject?: (source: 'mailbox' | 'inFlight') => void;
  /** Cluster mode: serve only the shards given to serveShards() (one owner per shard in the
   * cluster) instead of every shard of every family. Messages carry the requester's applied
   * sequence (`seen`), waited for with `waitApplied` before handling, and are answered with a
   * CommandReply. */
  sharded?: {
    /** Waits until this node applied `seq`; 503 CATCHING_UP after `maxMs` (default: its own bound). */
    waitApplied: (seq: number, maxMs?: number) => Promise<void>;
    /** Shuts the earlier deliveries of a command sent again (`attempt` > 0) out of the log
     * before it is handled here; throws when one of them stored it first (command-fences.ts). */
    fence?: (rid: string, attempt: number) => Promise<void>;
  };
}

interface Family {
  slots: Map<string, Slot>;
  create: (key: string) => Actor;
  /** Sharded hosts: the subscription of each shard served. */
  shards: Map<number, Subscription>;
}

export class ActorHost {
  private readonly families = new Map<string, Family>();
  private readonly subscriptions: Subscription[] = [];
  /** Sharded hosts: the shards this node owns now, and the chain of ownership changes. */
  private owned = new Set<number>();
  private changing: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly bus: Bus,
    private readonly opts: ActorHostOptions,
  ) {}

  /** Serves `weft.v1.<family>.*`, creating an actor per key with `create`. */
  async register(family: string, create: (key: string) => Actor): Promise<void> {
    const slots = new Map<string, Slot>();
    const entry: Family = { slots, create, shards: new Map() };
    this.families.set(family, entry);
    if (this.opts.sharded) {
      for (const shard of this.owned) await this.serveShard(family, entry, shard);
    } else {
      const sub = await this.bus.serve(kindWildcard(family, this.opts.scope), (msg) => this.dispatch(slots, create, msg as ActorMessage), {
        queue: `actors.${family}`,
      });
      this.subscriptions.push(sub);
    }
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), 60_000);
      this.sweeper.unref();
    }
  }

  /** Sharded hosts: serve exactly these shards of every family from now on. Shards given up
   * stop taking messages; their idle actors (and the volatile state they hold) are dropped, so
   * that a shard that comes back starts from the replica and fresh reports. */
  serveShards(shards: ReadonlySet<number>): Promise<void> {
    const next = new Set(shards);
    this.changing = this.changing.then(async () => {
      const lost = [...this.owned].filter((s) => !next.has(s));
      const gained = [...next].filter((s) => !this.owned.has(s));
      this.owned = next;
      for (const [name, family] of this.families) {
        for (const shard of gained) await this.serveShard(name, family, shard);
        for (const shard of lost) {
          const sub = family.shards.get(shard);
          family.shards.delete(shard);
          await sub?.unsubscribe();
        }
        if (lost.length > 0) this.dropActorsOf(family.slots, new Set(lost));
      }
    });
    return this.changing;
  }

  /** Sharded hosts: the shards served now. */
  ownedShards(): ReadonlySet<number> {
    return this.owned;
  }

  private async serveShard(name: string, family: Family, shard: number): Promise<void> {
    if (family.shards.has(shard)) return;
    // A queue group: while two nodes both believe they own the shard (their member lists differ
    // for a moment), each message still reaches only one of them. This node's own commands for
    // the shard are handled here without crossing the network, but only while NATS is reached:
    // meanwhile they fail fast as a remote owner's would, rather than wait in the log's append.
    const sub = await this.bus.serve(shardSubject(name, shard, this.opts.scope), (msg) => this.dispatch(family.slots, family.create, msg as ActorMessage), {
      queue: `shard.${name}`,
      local: 'while-connected',
    });
    family.shards.set(shard, sub);
  }

  private dropActorsOf(slots: Map<string, Slot>, shards: Set<number>): void {
    for (const [key, slot] of slots) {
      if (slot.mailbox.depth === 0 && shards.has(shardOf(key, DEFAULT_SHARD_COUNT))) slots.delete(key);
    }
  }

  private dispatch(slots: Map<string, Slot>, create: (key: string) => Actor, msg: ActorMessage): Promise<unknown> {
    if (typeof msg?.key !== 'string' || typeof msg.op !== 'string') {
      return Promise.reject(invalidMessage(typeof msg?.key !== 'string' ? 'key' : 'op', typeof msg?.key !== 'string' ? msg?.key : msg.op, 'an actor message has a string key and op'));
    }
    if (this.inFlight >= (this.opts.maxInFlight ?? Infinity)) {
      this.opts.onReject?.('inFlight');
      return Promise.reject(new ApiError('SERVER_TOO_MANY_REQUESTS'));
    }
    let slot = slots.get(msg.key);
    if (!slot) {
      slot = { actor: create(msg.key), mailbox: new Mailbox(this.opts.mailboxSize) };
      slots.set(msg.key, slot);
    }
    const { actor } = slot;
    if (slot.mailbox.depth >= slot.mailbox.capacity) this.opts.onReject?.('mailbox');
    this.inFlight++;
    const sharded = this.opts.sharded;
    // A node whose log is its own proposes without request ids or expiry: no command context.
    if (!sharded) return slot.mailbox.submit(() => handleRetryingStale(actor, msg)).finally(() => this.inFlight--);
    const request = onOwnerClock(readRequestFields(msg), Date.now());
    // A command not taken up by its `proposeBy` (its actor is busy: a flood, or an append waiting
    // for a new stream leader) is dropped unrun, like one that found the mailbox full: 429, and
    // its requester hears at once that nothing was done.
    const startBy = request.proposeBy === undefined ? undefined : {
      at: request.proposeBy,
      refusal: () => {
        this.opts.onReject?.('mailbox');
        return new ApiError('SERVER_TOO_MANY_REQUESTS', { code: 'NOT_TAKEN_UP', message: 'the entity was busy for too long to take this command up; nothing was done' });
      },
    };
    return slot.mailbox.submit(async () => {
      const context = commandContextOf(request);
      // The requester's request saw the log up to `seen`: whatever the handling reads (a name
      // taken, a referenced entity) must be at least that recent.
      await sharded.waitApplied(request.seen ?? 0, request.proposeBy === undefined ? undefined : request.proposeBy - Date.now());
      if (context.attempt > 0 && context.rid !== undefined) {
        if (!sharded.fence) throw new ApiError('TIMEOUT', { code: 'OUTCOME_UNKNOWN', message: 'this node cannot take over a command sent again; its outcome is the earlier delivery\'s' });
        await sharded.fence(context.rid, context.attempt);
        // From here on this delivery is the command's only one: its refusal is the answer.
        return withCommandContext(context, () => handleRetryingStale(actor, msg)).then(
          (answer) => commandReply(answer, context.seq),
          (err: unknown) => commandReply(undefined, context.seq, toApiError(err).toWire()),
        );
      }
      const answer = await withCommandContext(context, () => handleRetryingStale(actor, msg));
      return commandReply(answer, context.seq);
    }, startBy).finally(() => this.inFlight--);
  }

  /** Total messages waiting or running, and the deepest mailbox (for metrics and tests). */
  depth(): { inFlight: number; deepest: number; actors: number } {
    let deepest = 0;
    let actors = 0;
    for (const { slots } of this.families.values()) {
      for (const slot of slots.values()) {
        actors++;
        deepest = Math.max(deepest, slot.mailbox.depth);
      }
    }
    return { inFlight: this.inFlight, deepest, actors };
  }

  /** Per actor family: live actors, messages queued or running, the deepest mailbox (metrics). */
  familyDepths(): Record<string, { actors: number; queued: number; deepest: number }> {
    const out: Record<string, { actors: number; queued: number; deepest: number }> = {};
    for (const [family, { slots }] of this.families) {
      const f = { actors: 0, queued: 0, deepest: 0 };
      for (const slot of slots.values()) {
        f.actors++;
        f.queued += slot.mailbox.depth;
        f.deepest = Math.max(f.deepest, slot.mailbox.depth);
      }
      out[family] = f;
    }
    return out;
  }

  private sweep(): void {
    for (const { slots } of this.families.values()) {
      for (const [key, slot] of slots) {
        if (slot.mailbox.depth === 0 && slot.actor.isIdle()) slots.delete(key);
      }
    }
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.changing;
    const shardSubs = [...this.families.values()].flatMap((f) => [...f.shards.values()]);
    await Promise.all([...this.subscriptions, ...shardSubs].map((s) => s.unsubscribe()));
  }
}

/**
 * Handles the message, and again from the start while apply refuses its write as stale: the
 * handler re-reads, re-decides and re-proposes. The proposer returned the refusal only after this
 * node's replica applied the refused command, so the re-read sees the write it lost to. Handlers
 * that set `expect` propose once, after their reads, so running one again repeats nothing that
 * took effect (only work such as hashing or signing is done again).
 */
async function handleRetryingStale(actor: Actor, msg: ActorMessage): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await actor.handle(msg);
    } catch (err) {
      if (attempt >= STALE_WRITE_ATTEMPTS || !(err instanceof ApiError) || err.code !== 'STALE_WRITE') throw err;
    }
  }
}

