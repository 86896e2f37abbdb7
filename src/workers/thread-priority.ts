// The scheduling priority of the calling thread. The pool's threads lower their own so that
// hashing and bulk evaluation yield the CPU to the event loop that serves requests:
// - background: Linux's SCHED_IDLE policy. The thread runs when a core has nothing else to do,
//   and a request-serving thread that wakes up takes the core at once. A plain nice value does
//   not give that: measured here, a nice-19 busy thread still cost reads 30–50%, a SCHED_IDLE one
//   7–16% (BENCHMARKS.md). Node has no call for it, so util-linux's `chrt` sets it.
// - low: nice 10 (a smaller share of the CPU, no faster hand-over), or the process's own nice
//   value when that is higher already.
// - normal: unchanged.
// Linux keeps both per thread; elsewhere a single thread cannot be addressed (setpriority on the
// process would slow the event loop too), so nothing is changed there.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

export const WORKER_PRIORITIES = ['background', 'low', 'normal'] as const;
export type WorkerPriority = (typeof WORKER_PRIORITIES)[number];

const LOW_NICE = 10;
/** Linux's SCHED_IDLE policy number, as /proc/<tid>/stat shows it. */
const SCHED_IDLE = 5;

/** The kernel's id of the calling thread, or undefined where /proc/thread-self is missing. */
function kernelThreadId(): number | undefined {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

function setBackground(tid: number): boolean {
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

/** Gives the calling thread the priority asked for, as far as the system allows: background
 * falls back to a nice of 19 where `chrt` is missing or refused. What the thread got is read
 * back with ownThreadScheduling. */
export function setOwnThreadPriority(wanted: WorkerPriority): void {
  const tid = kernelThreadId();
  if (tid === undefined || wanted === 'normal') return;
  if (wanted === 'background' && setBackground(tid)) return;
  // A nice value can only be raised without privilege: a process started nicer keeps its own.
  setPriority(tid, Math.max(getPriority(tid), wanted === 'low' ? LOW_NICE : 19));
}

/** A thread's scheduling as ownThreadScheduling reads it (null where it cannot be read). */
export type ThreadScheduling = { idle: boolean; nice: number } | null;

/** The start-up log line for a pool asked for `wanted` whose thread reports `got`: a warning
 * when the system could not give what was asked. */
export function schedulingReport(wanted: WorkerPriority, got: ThreadScheduling): { level: 'info' | 'warn'; msg: string } {
  if (wanted !== 'normal' && got === null) return { level: 'warn', msg: 'worker pool: thread priorities cannot be set on this system; the pool runs at normal priority' };
  if (wanted === 'background' && !got?.idle) return { level: 'warn', msg: `worker pool: SCHED_IDLE not available (chrt missing or refused); running at nice ${got?.nice}` };
  return { level: 'info', msg: 'worker pool' };
}

/** The calling thread's scheduling: policy idle or not, and nice value; null where a thread
 * cannot be read alone. */
export function ownThreadScheduling(): ThreadScheduling {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' ');
    // After "pid (comm)": field 19 (nice) is index 16, field 41 (policy) is index 38.
    return { nice: Number(fields[16]), idle: Number(fields[38]) === SCHED_IDLE };
  } catch {
    return null;
  }
}
