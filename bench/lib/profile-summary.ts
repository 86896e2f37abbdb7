// Summarises V8 CPU profiles: self time by source file (native callees counted with their
// JavaScript caller), and by part of a request (HTTP and TLS, the NATS client, Weft's store,
// log and cluster code, GC), as shares of the time the thread was not idle.
// `node dist/bench/lib/profile-summary.js <file.cpuprofile> ...`

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const HTTP_PACKAGES = ['koa', 'koa-body', 'koa-compose', '@koa/router', 'type-is', 'on-finished', 'raw-body', 'delegates', 'parseurl', 'co-body', 'content-type', 'mime-types', 'http-errors', 'statuses', 'depd', 'vary', 'accepts', 'negotiator', 'fresh', 'encodeurl', 'escape-html', 'ee-first', 'media-typer', 'cookies', 'keygrip', 'only', 'inflation', 'iconv-lite', 'bytes', 'unpipe', 'content-disposition', 'destroy', 'formidable', 'zod'];

/** The source file (or npm package, or node: module) of a frame; '' for native frames. */
function fileOf(frame: ProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (!url) return functionName.startsWith('(') && functionName !== '(anonymous)' ? functionName : '';
  // The profiler's own frames (it is started and stopped from a signal handler): V8 counts the
  // idle time between as theirs.
  if (url.startsWith('node:inspector') || url.includes('cpu-profile-preload')) return '(idle)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm ${nm[1]}`;
  const own = /dist\/((?:src|bench|test)\/.*)\.js$/.exec(url);
  return own ? own[1] : url;
}

/** The part of a request a file belongs to. */
export function groupOf(file: string): string {
  if (file.startsWith('(')) return file === '(garbage collector)' ? 'GC' : 'V8/runtime (program)';
  if (file.startsWith('npm ')) {
    const pkg = file.slice(4);
    if (pkg === 'nats') return 'NATS client (npm nats)';
    if (HTTP_PACKAGES.includes(pkg)) return 'HTTP, TLS, sockets (node internals, koa)';
    if (pkg === 'classic-level' || pkg === 'abstract-level' || pkg.includes('level')) return 'LevelDB (write-behind)';
    return `npm ${pkg}`;
  }
  if (file.startsWith('node:')) return 'HTTP, TLS, sockets (node internals, koa)';
  const m = /^src\/([^/]+)/.exec(file);
  if (!m) return file;
  switch (m[1]) {
    case 'store': return 'store: apply, replica, indexes (src/store)';
    case 'log': case 'cluster': return 'log and cluster (src/log, src/cluster)';
    case 'bus': return 'bus (src/bus)';
    case 'gateway': case 'ops': case 'logger.ts': case 'logger': return 'gateway, access log, metrics';
    default: return `src/${m[1]}`;
  }
}

export function summarise(path: string): { busyMs: number; files: [string, number][]; groups: [string, number][] } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fileCache = new Map<number, string>();
  const attributed = (id: number): string => {
    const cached = fileCache.get(id);
    if (cached !== undefined) return cached;
    let file = fileOf(byId.get(id)!.callFrame);
    if (file === '') {
      const up = parent.get(id);
      file = up === undefined ? '(native)' : attributed(up);
      if (file === '(root)') file = '(native)';
    }
    fileCache.set(id, file);
    return file;
  };
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const file = attributed(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (file === '(idle)') return;
    busy += dt;
    self.set(file, (self.get(file) ?? 0) + dt);
  });
  const groups = new Map<string, number>();
  for (const [file, t] of self) groups.set(groupOf(file), (groups.get(groupOf(file)) ?? 0) + t);
  const share = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / busy] as [string, number]);
  return { busyMs: busy / 1000, files: share(self), groups: share(groups) };
}

export function formatSummary(s: ReturnType<typeof summarise>, top = 15): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`;
  return [
    ...s.groups.map(([g, x]) => `  ${pct(x)}  ${g}`),
    '  top files:',
    ...s.files.slice(0, top).map(([f, x]) => `    ${pct(x)}  ${f}`),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  for (const file of process.argv.slice(2)) {
    const s = summarise(file);
    process.stdout.write(`${file}: ${s.busyMs.toFixed(0)} ms busy\n${formatSummary(s, 30)}\n`);
  }
}
