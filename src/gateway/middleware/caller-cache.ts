// Sessions the gateway resolved a moment ago, by token: a repeated token skips the round trip
// to the query handler while the sessions version is unchanged, for at most a second. Every
// applied change that may affect a resolution (a deleted session, a disabled identity, MFA
// completed, a new auth policy: anything but a login or an activity flush, see
// SessionKeeper.resolutionVersion) moves the version and makes every entry
// stale at once; the second bounds what time alone changes, and means the query handler still
// sees each busy session, and records its activity, about once a second.

import type { SessionInfo } from '../../protocol/v1/query-messages.js';

/** A session recalled for a request, and its expiry as of now. */
export interface Recalled {
  session: SessionInfo;
  expiresAt: string;
}

interface Entry {
  session: SessionInfo;
  /** The sessions version the session was resolved at. */
  version: number;
  /** When it was resolved (Date.now() ms), and its expiry then. */
  at: number;
  expiresAtMs: number;
}

/** How long a resolved session is reused at most (ms). */
const REUSE_MS = 1_000;
/** Tokens remembered at most; the oldest goes first. */
const MAX_TOKENS = 10_000;

export class CallerCache {
  private readonly entries = new Map<string, Entry>();
  private lastIso = { ms: Number.NaN, text: '' };

  /** `version` moves with every applied change that may affect how a token resolves. */
  constructor(private readonly version: () => number) {}

  /** The version to pass to `remember` for a session resolved from now on. */
  currentVersion(): number {
    return this.version();
  }

  /** The session of token if it was resolved at the current version less than a second
   * ago, with its expiry moved on by the time since (this request is activity too). */
  recall(token: string, now = Date.now()): Recalled | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.version !== this.version() || now - entry.at >= REUSE_MS || now < entry.at) {
      this.entries.delete(token);
      return undefined;
    }
    return { session: entry.session, expiresAt: this.isoTime(entry.expiresAtMs + (now - entry.at)) };
  }

  /** ISO-8601 of a time; requests in the same millisecond share the string. */
  private isoTime(ms: number): string {
    if (ms !== this.lastIso.ms) this.lastIso = { ms, text: new Date(ms).toISOString() };
    return this.lastIso.text;
  }

  /** Keeps a session resolved at `version` (read before the resolution was asked for, so a change
   * landing meanwhile makes it stale rather than hiding). */
  remember(token: string, session: SessionInfo, version: number, now = Date.now()): void {
    const expiresAtMs = Date.parse(session.expiresAt);
    if (Number.isNaN(expiresAtMs)) return;
    this.entries.delete(token);
    if (this.entries.size >= MAX_TOKENS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { session, version, at: now, expiresAtMs });
  }
}
