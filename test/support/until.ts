// Test support: waiting, bounded, for a condition another process or timer brings about.

export interface UntilOptions {
  /** Give up after this long (ms). */
  timeoutMs: number;
  /** Probe again after this long (ms; default 100). */
  everyMs?: number;
  /** Added to the error when it gives up (logs, the last answer seen). */
  detail?: () => string;
}

/** Probes until it gives a value other than undefined or false and returns it; a probe that
 * throws counts as "not yet". Throws `timed out waiting for <what>` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, opts: UntilOptions): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await Promise.resolve().then(probe).catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${opts.detail ? `: ${opts.detail()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, opts.everyMs ?? 100));
  }
}
