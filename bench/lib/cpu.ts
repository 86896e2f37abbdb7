// CPU time, in µs (user + system, all threads): this process's (load generators report their
// own), and another process's read from Linux's /proc (the node and the baseline under load).

import { readFileSync } from 'node:fs';

/** Linux's USER_HZ: /proc times are in these ticks. */
const CLOCK_TICKS = 100;

export function ownCpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

export function processCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS;
}

/** Write system calls made so far by another process (all threads; Linux's /proc/<pid>/io
 * `syscw`): sockets, files and pipes alike. */
export function processWriteCalls(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, 'utf8').split('\n').find((l) => l.startsWith('syscw:'));
  return line ? Number(line.slice(6)) : 0;
}
