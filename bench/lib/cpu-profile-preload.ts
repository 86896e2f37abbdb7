// Preloaded into node processes by the cluster benchmark (`NODE_OPTIONS=--import=<this file>`,
// with BENCH_PROFILE_DIR set) when it profiles: the first SIGUSR2 starts a CPU profile of the
// main thread, the second writes it to <dir>/<pid>-<n>.cpuprofile. (`--cpu-prof` is not allowed
// in NODE_OPTIONS, and a profile of the whole process would include start-up and set-up.)

import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  let running = false;
  let count = 0;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `${process.pid}-${++count}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
