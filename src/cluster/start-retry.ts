// Retrying a cluster node's NATS and JetStream requests at start: nodes and NATS servers started
// together (Kubernetes, Compose) meet a JetStream that is still electing its leaders or too busy to
// answer. Transient failures are retried with backoff until the start deadline; refusals are not.

import { ErrorCode } from 'nats';
import { LogUnavailableError } from '../log/log-errors.js';
import { apiErrorCode } from '../log/jetstream-stream.js';

/** JetStream API error code: JetStream has no meta leader yet ("temporarily unavailable"). */
const JETSTREAM_NOT_READY = 10008;
/** Waits between attempts (ms); the last one repeats. */
const BACKOFF_MS = [250, 500, 1000, 2000, 4000];

/** Runs `fn` once, or again after a transient failure until the start deadline (see StartRetry). */
export type Retry = <T>(step: string, fn: () => Promise<T>) => Promise<T>;

export interface StartRetryOptions {
  /** Epoch ms after which a transient failure is thrown as it is; Infinity = retry for ever. */
  deadline: number;
  /** Told once per retry: the step, the failure, the wait before the next attempt (ms). */
  onRetry: (step: string, err: unknown, waitMs: number) => void;
  /** Overrides the waits (tests). */
  backoffMs?: readonly number[];
}

/** A Retry bound to one start: every step shares the deadline. */
export function startRetry(opts: StartRetryOptions): Retry {
  const backoff = opts.backoffMs ?? BACKOFF_MS;
  return async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const wait = backoff[Math.min(attempt, backoff.length - 1)];
        if (!isTransientAtStart(err) || Date.now() + wait > opts.deadline) throw err;
        opts.onRetry(step, err, wait);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
}

/** A failure that may pass by itself: no NATS server reachable yet, a request left unanswered,
 * no responder (JetStream not up), JetStream without a leader, or the log's stream that could
 * not be opened for one of these. A refusal (wrong secret, a node id in use, a data directory of
 * another cluster, a JetStream error with a code) is not. */
export function isTransientAtStart(err: unknown): boolean {
  if (err instanceof LogUnavailableError) return err.cause !== undefined && isTransientAtStart(err.cause);
  const code = (err as { code?: string } | null)?.code;
  const apiCode = apiErrorCode(err);
  // A JetStream API error carries an HTTP-like code too ("503" for insufficient resources): only
  // its err_code tells; "503" without one is NATS's "no responders".
  if (apiCode !== undefined) return apiCode === JETSTREAM_NOT_READY;
  return code === ErrorCode.Timeout || code === ErrorCode.NoResponders || code === ErrorCode.ConnectionRefused || code === ErrorCode.ConnectionTimeout;
}

/** The failure in one line for a log field (no stack). */
export function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: string }).code;
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}
