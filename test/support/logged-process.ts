// Test support: child processes whose stdout and stderr go to files (kept for failure
// diagnosis), tracked so that whatever is still alive is SIGKILLed when the test process ends.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';

/** One run of a child process writing its output to files. */
export interface LoggedProcess {
  proc: ChildProcess;
  /** Resolves once the process has exited (never rejects). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  isRunning(): boolean;
  /** Sends `signal` (default SIGTERM) and waits; SIGKILL after `timeoutMs`. Resolves to the exit code. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /** SIGKILL and wait (at most 10 s); never throws. */
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();

/** SIGKILLs every process started here that still runs. */
export function killAllLoggedProcesses(): void {
  for (const proc of live) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}

// The safety net for failures and timeouts: node's test runner ends a file's process when its
// tests are done or cancelled, and no server may outlive it.
process.once('exit', killAllLoggedProcesses);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllLoggedProcesses();
    process.exit(130);
  });
}

/**
 * Spawns `bin args`, appending stdout to `outPath` and stderr to `errPath` (both files start
 * with a header line naming this run, so restarts stay readable in one file).
 */
export function spawnLogged(bin: string, args: string[], env: NodeJS.ProcessEnv, outPath: string, errPath: string): LoggedProcess {
  const header = `\n===== ${new Date().toISOString()} start: ${bin} ${args.join(' ')}\n`;
  const out = openSync(outPath, 'a');
  const err = openSync(errPath, 'a');
  writeSync(out, header);
  if (errPath !== outPath) writeSync(err, header);
  const proc = spawn(bin, args, { env, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  live.add(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      resolve({ code, signal });
    });
    proc.once('error', () => {
      live.delete(proc);
      resolve({ code: null, signal: null });
    });
  });
  const isRunning = () => proc.exitCode === null && proc.signalCode === null && live.has(proc);
  const waitAtMost = async (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)))]);
    clearTimeout(timer);
    return result;
  };
  return {
    proc,
    exited,
    isRunning,
    async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (isRunning()) proc.kill(signal);
      const result = await waitAtMost(timeoutMs);
      if (result !== 'timeout') return result.code;
      proc.kill('SIGKILL');
      await waitAtMost(10_000);
      throw new Error(`${bin} did not exit within ${timeoutMs} ms of ${signal}; killed`);
    },
    async kill() {
      if (isRunning()) proc.kill('SIGKILL');
      await waitAtMost(10_000);
    },
  };
}

/** The size of a file (0 when absent), to read only what a run appended after it. */
export function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The text appended to `path` after byte `from`. */
export function readFrom(path: string, from = 0): string {
  try {
    return readFileSync(path).subarray(from).toString('utf8');
  } catch {
    return '';
  }
}

/** The last `lines` lines of a file (those `keep` accepts), for failure reports. */
export function tailOf(path: string, lines = 40, keep: (line: string) => boolean = () => true): string {
  const text = readFrom(path).trimEnd();
  return text.split('\n').filter(keep).slice(-lines).join('\n');
}
