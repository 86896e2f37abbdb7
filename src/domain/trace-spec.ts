// The body of PUT /identities/{id}/trace (upstream traceSpec): validation and Go-style
// durations ("10m", "1h30m", "500ms"). Pure.

import { fieldError } from '../errors.js';

/** What a trace request asks for, validated. */
export interface TraceRequest {
  enabled: boolean;
  /** Milliseconds the trace lasts (enabled only). */
  durationMs: number;
  /** The caller's trace id, or undefined to have one generated. */
  traceId?: string;
  /** Channels to trace; empty = all. */
  channels: string[];
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration ("1h30m", "2.5s", "300ms"); undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!match) return text === '0' ? 0 : undefined;
  let total = 0;
  for (const part of text.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * UNIT_MS[part[2]!]!;
  }
  return match[1] === '-' ? -total : total;
}

/** Validates a traceSpec body; 400 COULD_NOT_VALIDATE naming the field otherwise. */
export function parseTraceRequest(body: unknown): TraceRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw fieldError('(root)', body ?? null, 'the body must be a traceSpec object');
  const spec = body as Record<string, unknown>;
  if (spec.enabled !== undefined && typeof spec.enabled !== 'boolean') throw fieldError('enabled', spec.enabled, 'enabled in body must be of type boolean');
  if (spec.traceId !== undefined && spec.traceId !== null && typeof spec.traceId !== 'string') throw fieldError('traceId', spec.traceId, 'traceId in body must be of type string');
  const channels = spec.channels ?? [];
  if (!Array.isArray(channels) || channels.some((c) => typeof c !== 'string')) throw fieldError('channels', channels, 'channels in body must be an array of strings');
  const enabled = spec.enabled === true;
  let durationMs = 0;
  if (enabled) {
    if (typeof spec.duration !== 'string') throw fieldError('duration', spec.duration ?? null, 'duration in body must be of type string');
    const parsed = parseGoDuration(spec.duration);
    if (parsed === undefined) throw fieldError('duration', spec.duration, `time: invalid duration "${spec.duration}"`);
    if (parsed <= 0) throw fieldError('duration', spec.duration, 'duration must be positive');
    durationMs = parsed;
  }
  const traceId = typeof spec.traceId === 'string' && spec.traceId !== '' ? spec.traceId : undefined;
  if (traceId !== undefined && (traceId.length > 128 || !/^[\x21-\x7e]+$/.test(traceId))) {
    throw fieldError('traceId', traceId, 'traceId must be 1 to 128 printable characters without spaces');
  }
  return { enabled, durationMs, traceId, channels: channels as string[] };
}
