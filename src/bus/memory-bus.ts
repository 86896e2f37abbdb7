// MemoryBus: the in-process Bus. NATS-style subject matching, queue groups (round-robin),
// messages crossing as copies of what JSON carries (as on a real bus), errors crossing as their
// wire form, and a close() that drains. Requests are answered as NatsBus answers its local
// subjects (answerHere in bus.ts).

import { ApiError } from '../errors.js';
import {
  answerHere,
  messageCopy,
  messageText,
  type Bus,
  type EventHandler,
  type RequestHandler,
  type RequestOptions,
  type ServeOptions,
  type Subscription,
} from './bus.js';
import { Deadlines } from './deadlines.js';
import { jsonCopy } from './json-copy.js';
import { InFlight } from './in-flight.js';
import { assertSubject, reportEventError } from './subjects.js';

/** Options of a MemoryBus. */
export interface MemoryBusOptions {
  /** Receives errors thrown by event handlers (default: written to stderr). */
  onEventError?: (err: unknown, subject: string) => void;
}

/** Milliseconds a request waits for its answer when the caller gives no timeout. */
const DEFAULT_TIMEOUT_MS = 10_000;

interface Entry {
  id: number;
  tokens: string[];
  pattern: string;
  queue?: string;
  serve?: RequestHandler;
  event?: EventHandler;
}

/** An in-process Bus; one instance shared by every component of a single-node controller. */
export class MemoryBus implements Bus {
  private readonly entries = new Map<number, Entry>();
  private readonly roundRobin = new Map<string, number>();
  /** Entries matching a subject, by subject; cleared whenever an entry comes or goes. */
  private readonly matchCache = new Map<string, Entry[]>();
  /** Request targets of subjects no queue group serves (the same every time), cleared with matchCache. */
  private readonly plainTargets = new Map<string, Entry[]>();
  private readonly inFlight = new InFlight();
  private readonly deadlines = new Deadlines();
  private readonly onEventError: (err: unknown, subject: string) => void;
  private nextId = 1;
  private closing?: Promise<void>;

  constructor(opts: MemoryBusOptions = {}) {
    this.onEventError = opts.onEventError ?? reportEventError;
  }

  // Not an async function: returning the answer's own promise saves the steps an async
  // function's promise takes to adopt it. Every failure is still a rejection.
  request(subject: string, msg: unknown, opts: RequestOptions = {}): Promise<unknown> {
    try {
      this.assertOpen();
      assertSubject(subject, false);
      const targets = this.requestTargets(subject);
      if (targets.length === 0) {
        messageText(msg); // a message JSON cannot carry is refused first, as on every bus
        throw new ApiError('SERVICE_UNAVAILABLE');
      }
      const raw = opts.raw === true;
      // Each handler gets its own copy of the message (answerHere makes it).
      const answer = (target: Entry) => this.inFlight.track(answerHere(target.serve!, subject, msg, raw));
      const answered = targets.length === 1 ? answer(targets[0]) : Promise.race(targets.map(answer));
      return this.deadlines.within(answered, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async serve(subject: string, handler: RequestHandler, opts: ServeOptions = {}): Promise<Subscription> {
    return this.add(subject, { serve: handler, queue: opts.queue });
  }

  async publish(subject: string, msg: unknown): Promise<void> {
    this.assertOpen();
    assertSubject(subject, false);
    // Refused here when JSON cannot carry it; each subscriber gets its own copy (the first one
    // this one).
    const copy = messageCopy(msg);
    let delivered = 0;
    for (const entry of this.matching(subject)) {
      if (entry.event) this.inFlight.track(this.deliverEvent(entry.event, delivered++ === 0 ? copy : jsonCopy(copy), subject));
    }
  }

  async subscribe(subject: string, handler: EventHandler): Promise<Subscription> {
    return this.add(subject, { event: handler });
  }

  close(): Promise<void> {
    this.closing ??= this.drain();
    return this.closing;
  }

  private async drain(): Promise<void> {
    await this.inFlight.idle();
    this.entries.clear();
  }

  private assertOpen(): void {
    if (this.closing) throw new ApiError('SERVICE_UNAVAILABLE');
  }

  private add(subject: string, parts: Pick<Entry, 'serve' | 'event' | 'queue'>): Subscription {
    this.assertOpen();
    assertSubject(subject, true);
    const id = this.nextId++;
    this.entries.set(id, { id, tokens: subject.split('.'), pattern: subject, ...parts });
    this.matchCache.clear();
    this.plainTargets.clear();
    return {
      unsubscribe: async () => {
        this.entries.delete(id);
        this.matchCache.clear();
        this.plainTargets.clear();
      },
    };
  }

  private matching(subject: string): Entry[] {
    let found = this.matchCache.get(subject);
    if (!found) {
      const tokens = subject.split('.');
      found = [...this.entries.values()].filter((e) => matches(e.tokens, tokens));
      if (this.matchCache.size >= MATCH_CACHE_SIZE) this.matchCache.clear();
      this.matchCache.set(subject, found);
    }
    return found;
  }

  /** Every plain server of subject, plus one member (round-robin) of each matching queue group. */
  private requestTargets(subject: string): Entry[] {
    const known = this.plainTargets.get(subject);
    if (known) return known;
    const plain: Entry[] = [];
    const groups = new Map<string, Entry[]>();
    for (const entry of this.matching(subject)) {
      if (!entry.serve) continue;
      if (entry.queue === undefined) {
        plain.push(entry);
        continue;
      }
      const key = `${entry.pattern}\u0000${entry.queue}`;
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    if (groups.size === 0) {
      if (this.plainTargets.size >= MATCH_CACHE_SIZE) this.plainTargets.clear();
      this.plainTargets.set(subject, plain);
    }
    for (const [key, members] of groups) {
      const turn = this.roundRobin.get(key) ?? 0;
      this.roundRobin.set(key, turn + 1);
      plain.push(members[turn % members.length]);
    }
    return plain;
  }

  private async deliverEvent(handler: EventHandler, msg: unknown, subject: string): Promise<void> {
    await Promise.resolve();
    try {
      await handler(msg, subject);
    } catch (err) {
      this.onEventError(err, subject);
    }
  }
}

/** Subjects whose matching entries are remembered (cleared wholesale when full). */
const MATCH_CACHE_SIZE = 10_000;

/** NATS matching: `*` is exactly one token, a final `>` one or more. */
function matches(pattern: string[], subject: string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '>') return subject.length > i;
    if (i >= subject.length) return false;
    if (pattern[i] !== '*' && pattern[i] !== subject[i]) return false;
  }
  return pattern.length === subject.length;
}
