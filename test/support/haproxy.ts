// Test support: HAProxy (Debian's package) in TCP mode in front of the nodes' HTTPS ports:
// roundrobin per connection, TLS passed through untouched, GET /readyz over TLS as health check
// (as deploy/compose/haproxy.cfg does, checked more often). A new server list is a soft reload,
// never a restart: no connection is refused or cut.

import { existsSync, writeFileSync } from 'node:fs';
import { canConnect } from './nats-server.js';
import { join } from 'node:path';
import { readFrom, sizeOf, spawnLogged, tailOf, type LoggedProcess } from './logged-process.js';

const LOCATIONS = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'];
const READY_TIMEOUT_MS = 10_000;
/** How long a process replaced by a reload may go on with its connections: longer than a removed
 * node takes to answer what it has (its shutdown grace, then at most DRAIN_TIMEOUT_MS, 10 s). */
export const HARD_STOP_AFTER = '15s';

/** A backend server: its name in the stats and its loopback HTTPS port. */
export interface BalancedServer {
  name: string;
  port: number;
}

/** A running HAProxy. */
export interface Balancer {
  port: number;
  /** https://127.0.0.1:<port> */
  url: string;
  /**
   * Reloads HAProxy with this server list, as an operator does (`haproxy -x <socket> -sf <pid>`):
   * the new process takes over the listening sockets (no connection waiting to be accepted is
   * lost), the old one stops accepting and finishes the connections it has (each stays with its
   * node) before it exits, at most HARD_STOP_AFTER later. Resolves once the new process serves
   * and the old one has stopped accepting.
   */
  setServers(servers: BalancedServer[]): Promise<void>;
  /** Connections each server got (`stot`) and whether it is UP by a check that passed (a new
   * process counts every server UP until its first check: that alone is not `up`). */
  stats(): Promise<Map<string, { connections: number; up: boolean }>>;
  /** Resolves once every named server's health check is UP (throws after `timeoutMs`). */
  waitUp(names: string[], timeoutMs?: number): Promise<void>;
  logPath: string;
  stop(): Promise<void>;
}

/** HAPROXY_BIN, then the Debian locations; a clear error when missing. */
export function findHaproxy(): string {
  const found = [process.env.HAPROXY_BIN, ...LOCATIONS].find((p) => p && existsSync(p));
  if (found) return found;
  throw new Error(
    'haproxy not found (looked at $HAPROXY_BIN, /usr/sbin, /usr/bin). The test command (`npm test`) installs ' +
      "Debian's haproxy package when missing; to install it yourself run `apt-get install -y haproxy`.",
  );
}

/** The configuration: one TCP frontend, one roundrobin backend, an HTTP stats listener, and an
 * admin socket that hands the listening sockets over to the next process at a reload. */
export function haproxyConfig(port: number, statsPort: number, servers: BalancedServer[], socketPath: string): string {
  return [
    'global',
    '  maxconn 1024',
    '  nbthread 1',
    `  stats socket ${socketPath} mode 600 level admin expose-fd listeners`,
    `  hard-stop-after ${HARD_STOP_AFTER}`,
    'defaults',
    '  mode tcp',
    '  timeout connect 1s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout check 2s',
    // A connection refused by a dead node is tried again on another one.
    '  retries 3',
    '  option redispatch',
    'frontend weft',
    `  bind 127.0.0.1:${port}`,
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    // A node takes new connections only while it answers 200 (ready, not shutting down). Once it
    // answers 503 it is out within 300 ms plus the checks' own time: the next check (every
    // 200 ms) and one more 100 ms later (fall 2). A stopping node's grace (cluster.ts:
    // TEST_SHUTDOWN_GRACE) is longer.
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server check check-ssl verify none inter 200 fastinter 100 fall 2 rise 1',
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port}`),
    // When no node is ready (all lost NATS or the log at once, as when the stream's leader dies),
    // every node takes connections again, unchecked, and answers 503 with Retry-After itself
    // rather than the balancer dropping the connection.
    '  option allbackups',
    ...servers.map((s) => `  server ${s.name}-fallback 127.0.0.1:${s.port} backup no-check`),
    'listen stats',
    '  mode http',
    `  bind 127.0.0.1:${statsPort}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
}

/** Starts HAProxy on `port` (stats on `statsPort`) writing its config, admin socket and log into `dir`. */
export async function startHaproxy(dir: string, port: number, statsPort: number, servers: BalancedServer[]): Promise<Balancer> {
  const bin = findHaproxy();
  const configPath = join(dir, 'haproxy.cfg');
  const socketPath = join(dir, 'haproxy.sock');
  const logPath = join(dir, 'haproxy.log');
  let proc: LoggedProcess | undefined;
  /** Processes replaced by a reload, finishing their connections (stop() ends them too). */
  const retiring = new Set<LoggedProcess>();

  const launch = async (list: BalancedServer[]) => {
    writeFileSync(configPath, haproxyConfig(port, statsPort, list, socketPath));
    const previous = proc?.isRunning() ? proc : undefined;
    const logFrom = sizeOf(logPath);
    // -x: take the listening sockets over from the running process; -sf: once serving, tell it
    // to stop accepting and to exit when its connections are done (a soft stop).
    const takeOver = previous ? ['-x', socketPath, '-sf', String(previous.proc.pid)] : [];
    const next = spawnLogged(bin, ['-db', '-f', configPath, ...takeOver], process.env, logPath, logPath);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const ready = previous
      ? async () => !previous.isRunning() || new RegExp(`\\(${previous.proc.pid}\\) : Proxy weft stopped`).test(readFrom(logPath, logFrom))
      : () => canConnect(port);
    while (!(await ready())) {
      if (!next.isRunning()) throw new Error(`haproxy exited at ${previous ? 'a reload' : 'start'}:\n${tailOf(logPath)}`);
      if (Date.now() > deadline) {
        await next.kill();
        throw new Error(`haproxy did not ${previous ? 'take over' : `listen on ${port}`} within ${READY_TIMEOUT_MS} ms:\n${tailOf(logPath)}`);
      }
      await sleep(50);
    }
    proc = next;
    if (previous) {
      retiring.add(previous);
      void previous.exited.then(() => retiring.delete(previous));
    }
  };

  const stats = async () => {
    const res = await fetch(`http://127.0.0.1:${statsPort}/stats;csv`);
    const lines = (await res.text()).split('\n');
    const head = lines[0].replace(/^# /, '').split(',');
    const col = (name: string) => head.indexOf(name);
    const out = new Map<string, { connections: number; up: boolean }>();
    for (const line of lines.slice(1)) {
      const cells = line.split(',');
      if (cells[col('pxname')] !== 'nodes' || cells[col('svname')] === 'BACKEND') continue;
      const checked = /L7OK/.test(cells[col('check_status')]);
      out.set(cells[col('svname')], { connections: Number(cells[col('stot')]), up: cells[col('status')] === 'UP' && checked });
    }
    return out;
  };

  await launch(servers);
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    logPath,
    stats,
    async setServers(list) {
      await launch(list);
    },
    async waitUp(names, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = await stats().catch(() => new Map<string, { up: boolean }>());
        const down = names.filter((n) => !now.get(n)?.up);
        if (down.length === 0) return;
        if (Date.now() > deadline) throw new Error(`haproxy: ${down.join(', ')} not UP after ${timeoutMs} ms`);
        await sleep(100);
      }
    },
    async stop() {
      await Promise.all([proc, ...retiring].map((p) => p?.stop('SIGTERM', 10_000).catch(() => p.kill())));
    },
  };
}


function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
