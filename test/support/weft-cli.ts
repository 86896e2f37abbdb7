// Test support: the `weft` CLI run in-process with its output captured, with a session file of
// the caller's choosing (so `weft login` then other commands behave as in a shell).

import { runWeft } from '../../src/cli/weft.js';

/** What a `weft` run printed and its exit code. */
export interface WeftRun {
  code: number;
  out: string;
  err: string;
}

/** A runner of `weft <args>` that keeps its session in `sessionFile`. */
export function weftCli(sessionFile: string): (args: string[]) => Promise<WeftRun> {
  return async (args) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runWeft(args, { out: (t) => out.push(t), err: (t) => err.push(t), readStdin: async () => '', sessionFile });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
