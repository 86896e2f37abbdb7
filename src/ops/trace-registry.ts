// Identity traces (PUT /identities/{id}/trace): which identities are traced, until when and on
// which channels. Node-local and volatile by design (not in the log): a trace is a debugging
// aid for the node an operator is watching, and ends with the process.

import type { Logger } from '../logger.js';

/** The channel of gateway requests made by the traced identity. */
export const TRACE_API = 'api';
/** The channel of posture decisions about the traced identity. */
export const TRACE_POSTURE = 'posture';

/** An active trace. */
export interface TraceSpec {
  traceId: string;
  /** Epoch milliseconds the trace ends. */
  until: number;
  /** Traced channels; empty = every channel. */
  channels: string[];
}

/** Most identities traced at once on one node. */
const MAX_TRACES = 10_000;

export class TraceRegistry {
  private readonly traces = new Map<string, TraceSpec>();

  constructor(
    private readonly log?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts (or replaces) the trace of an identity. `all` among channels means every channel. */
  enable(identityId: string, opts: { durationMs: number; traceId: string; channels: string[] }): TraceSpec {
    this.prune();
    if (!this.traces.has(identityId) && this.traces.size >= MAX_TRACES) {
      throw new RangeError(`at most ${MAX_TRACES} identities can be traced at once`);
    }
    const channels = opts.channels.length === 0 || opts.channels.includes('all') ? [] : [...new Set(opts.channels)];
    const spec: TraceSpec = { traceId: opts.traceId, until: this.now() + opts.durationMs, channels };
    this.traces.set(identityId, spec);
    this.log?.info('trace enabled', { identityId, traceId: spec.traceId, until: new Date(spec.until).toISOString(), channels: channels.length ? channels : ['all'] });
    return spec;
  }

  disable(identityId: string): void {
    const spec = this.traces.get(identityId);
    if (!spec) return;
    this.traces.delete(identityId);
    this.log?.info('trace disabled', { identityId, traceId: spec.traceId });
  }

  /**
   * The trace id when the identity is traced (on `channel`, or on any channel when omitted),
   * else undefined. Cheap: a map lookup. Posture code calls `isTraced(id, TRACE_POSTURE)`.
   */
  isTraced(identityId: string | undefined, channel?: string): string | undefined {
    if (identityId === undefined) return undefined;
    const spec = this.traces.get(identityId);
    if (!spec) return undefined;
    if (spec.until <= this.now()) {
      this.traces.delete(identityId);
      return undefined;
    }
    if (channel !== undefined && spec.channels.length > 0 && !spec.channels.includes(channel)) return undefined;
    return spec.traceId;
  }

  /** Logs `msg` (info, with traceId and channel) when the identity is traced on channel;
   * returns whether it did. Fields must hold no secrets. */
  trace(identityId: string | undefined, channel: string, msg: string, fields: Record<string, unknown> = {}): boolean {
    const traceId = this.isTraced(identityId, channel);
    if (traceId === undefined) return false;
    this.log?.info(msg, { ...fields, trace: true, traceId, channel, identityId });
    return true;
  }

  /** Identities traced right now. */
  get size(): number {
    this.prune();
    return this.traces.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, spec] of this.traces) if (spec.until <= now) this.traces.delete(id);
  }
}
