// Node configuration: the only reader of process.env and argv. Every key has a flag and a
// WEFT_* variable (flags win), a default below, and a validation message that names it.

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { WORKER_PRIORITIES, type WorkerPriority } from './workers/thread-priority.js';

export interface Config {
  /** host:port of the HTTPS API. */
  listen: string;
  /** host:port of the gRPC server (health, router streams). Port 0 = any free port. */
  grpcListen: string;
  dataDir: string;
  adminUsername: string;
  /** undefined = generate one at first start, print it once, store it owner-only. */
  adminPassword?: string;
  /** undefined = embedded in-process bus. */
  natsUrl?: string;
  /** With natsUrl: cluster mode (shared JetStream log, CA sealed with it). At least 32 chars. */
  clusterSecret?: string;
  /** The cluster secret being rotated away from: a cluster still on it is moved to clusterSecret. */
  clusterPreviousSecret?: string;
  /** Names the cluster's JetStream stream and buckets, so clusters can share one NATS. */
  clusterName: string;
  /** JetStream replicas of the cluster's log and buckets; undefined = min(3, NATS servers). */
  clusterReplicas?: number;
  /** Cluster log retention by age (ms); 0 = no age limit. Nodes down longer re-join from a snapshot. */
  logMaxAgeMs: number;
  /** Cluster log retention by size (bytes); 0 = no size limit. */
  logMaxBytes: number;
  /** How long a cluster node retries NATS and JetStream at start (ms); 0 = for ever. */
  clusterStartTimeoutMs: number;
  /** On SIGTERM / SIGINT: how long the node keeps serving while GET /readyz answers 503
   * SHUTTING_DOWN, so balancers send new connections elsewhere, before it stops listening (ms).
   * 0 = none. Default CLUSTER_SHUTDOWN_GRACE_MS in cluster mode, 0 otherwise. */
  shutdownGraceMs: number;
  tlsCert?: string;
  tlsKey?: string;
  /** Stable node name; undefined = generated once and kept in the data dir. */
  nodeId?: string;
  /** Address clients use to reach this node (for certificates and /controllers). */
  advertise?: string;
  sessionTimeoutMinutes: number;
  workerThreads: number;
  /** Scheduling priority of the pool's threads (see workers/thread-priority.ts). */
  workerPriority: WorkerPriority;
  mailboxSize: number;
  /** The replica's memory budget in MiB (index tree, value cache, LevelDB block cache). */
  cacheMb: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

interface KeySpec {
  flag: string;
  env: string;
  key: keyof Config;
  kind: 'string' | 'int' | 'choice' | 'duration' | 'bytes';
  help: string;
  /** The values a 'choice' takes. */
  choices?: readonly string[];
  min?: number;
  max?: number;
  /** What 0 means for a duration or size (default: no limit). */
  zero?: string;
}

export const DEFAULTS = {
  listen: '127.0.0.1:1280',
  grpcListen: '127.0.0.1:1281',
  dataDir: './data',
  adminUsername: 'admin',
  clusterName: 'weft',
  logMaxAgeMs: 24 * 3600_000,
  logMaxBytes: 0,
  clusterStartTimeoutMs: 60_000,
  /** In cluster mode CLUSTER_SHUTDOWN_GRACE_MS unless set. */
  shutdownGraceMs: 0,
  sessionTimeoutMinutes: 30,
  workerThreads: 2,
  workerPriority: 'background',
  mailboxSize: 64,
  cacheMb: 512,
  logLevel: 'info',
} as const satisfies Partial<Config>;

/** The shutdown grace of a cluster node unless configured: longer than the balancer's health
 * check needs to take a node out (deploy/compose/haproxy.cfg: ~1.5 s, every 1 s then 0.5 s,
 * twice). An embedded node has no peer to hand traffic to and stops at once by default. */
export const CLUSTER_SHUTDOWN_GRACE_MS = 3_000;

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'];

const KEYS: KeySpec[] = [
  { flag: 'listen', env: 'WEFT_LISTEN', key: 'listen', kind: 'string', help: `HTTPS API address host:port (default ${DEFAULTS.listen})` },
  { flag: 'grpc-listen', env: 'WEFT_GRPC_LISTEN', key: 'grpcListen', kind: 'string', help: `gRPC address host:port (default ${DEFAULTS.grpcListen})` },
  { flag: 'data-dir', env: 'WEFT_DATA_DIR', key: 'dataDir', kind: 'string', help: `data directory (default ${DEFAULTS.dataDir})` },
  { flag: 'admin-username', env: 'WEFT_ADMIN_USERNAME', key: 'adminUsername', kind: 'string', help: 'default admin username at first start (default admin)' },
  { flag: 'admin-password', env: 'WEFT_ADMIN_PASSWORD', key: 'adminPassword', kind: 'string', help: 'default admin password at first start (default: generated, printed once)' },
  { flag: 'nats-url', env: 'WEFT_NATS_URL', key: 'natsUrl', kind: 'string', help: 'NATS server URL(s), comma separated (default: embedded in-process bus)' },
  { flag: 'cluster-secret', env: 'WEFT_CLUSTER_SECRET', key: 'clusterSecret', kind: 'string', help: 'with --nats-url: cluster mode; the same secret (32+ chars) on every node' },
  { flag: 'cluster-previous-secret', env: 'WEFT_CLUSTER_PREVIOUS_SECRET', key: 'clusterPreviousSecret', kind: 'string', help: 'rotating the cluster secret: the old secret; the first node started with both moves the cluster to the new one' },
  { flag: 'cluster-name', env: 'WEFT_CLUSTER_NAME', key: 'clusterName', kind: 'string', help: 'cluster name: names its JetStream stream and buckets (default weft)' },
  { flag: 'cluster-replicas', env: 'WEFT_CLUSTER_REPLICAS', key: 'clusterReplicas', kind: 'int', min: 1, max: 5, help: 'JetStream replicas of the cluster log (default: min(3, NATS servers))' },
  { flag: 'log-max-age', env: 'WEFT_LOG_MAX_AGE', key: 'logMaxAgeMs', kind: 'duration', min: 120_000, help: 'cluster log retention by age, e.g. 24h, 90m; 0 = none (default 24h)' },
  { flag: 'log-max-bytes', env: 'WEFT_LOG_MAX_BYTES', key: 'logMaxBytes', kind: 'bytes', min: 65_536, help: 'cluster log retention by size, e.g. 512MB, 8GB; 0 = none (default 0)' },
  { flag: 'cluster-start-timeout', env: 'WEFT_CLUSTER_START_TIMEOUT', key: 'clusterStartTimeoutMs', kind: 'duration', min: 5_000, help: 'how long a cluster node retries NATS and JetStream at start (still forming, busy), e.g. 60s, 5m; 0 = for ever (default 60s)' },
  { flag: 'shutdown-grace', env: 'WEFT_SHUTDOWN_GRACE', key: 'shutdownGraceMs', kind: 'duration', max: 600_000, zero: 'none', help: `on SIGTERM: keep serving this long with GET /readyz answering 503, then stop listening, e.g. 3s, 500ms; 0 = none (default ${CLUSTER_SHUTDOWN_GRACE_MS / 1000}s in cluster mode, else 0)` },
  { flag: 'tls-cert', env: 'WEFT_TLS_CERT', key: 'tlsCert', kind: 'string', help: 'PEM server certificate (default: generated under <data-dir>/pki)' },
  { flag: 'tls-key', env: 'WEFT_TLS_KEY', key: 'tlsKey', kind: 'string', help: 'PEM private key for --tls-cert' },
  { flag: 'node-id', env: 'WEFT_NODE_ID', key: 'nodeId', kind: 'string', help: 'node name (default: generated once, kept in the data dir)' },
  { flag: 'advertise', env: 'WEFT_ADVERTISE', key: 'advertise', kind: 'string', help: 'host:port clients use to reach this node (default: the listen address)' },
  { flag: 'session-timeout-minutes', env: 'WEFT_SESSION_TIMEOUT_MINUTES', key: 'sessionTimeoutMinutes', kind: 'int', min: 1, max: 100_000, help: 'API session idle timeout (default 30)' },
  { flag: 'worker-threads', env: 'WEFT_WORKER_THREADS', key: 'workerThreads', kind: 'int', min: 1, max: 256, help: 'worker pool threads (default 2)' },
  { flag: 'worker-priority', env: 'WEFT_WORKER_PRIORITY', key: 'workerPriority', kind: 'choice', choices: WORKER_PRIORITIES, help: 'worker pool CPU priority: background | low | normal (default background)' },
  { flag: 'mailbox-size', env: 'WEFT_MAILBOX_SIZE', key: 'mailboxSize', kind: 'int', min: 1, max: 1_000_000, help: 'bounded actor mailbox size (default 64)' },
  { flag: 'cache-mb', env: 'WEFT_CACHE_MB', key: 'cacheMb', kind: 'int', min: 4, max: 1_048_576, help: 'replica memory budget in MiB: index tree, record cache, LevelDB block cache (default 512)' },
  { flag: 'log-level', env: 'WEFT_LOG_LEVEL', key: 'logLevel', kind: 'choice', choices: LEVELS, help: 'debug | info | warn | error | silent (default info)' },
];

export class ConfigError extends Error {}

/** Returns 'help' when --help was asked for, else the validated configuration. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): Config | 'help' {
  const flags = parseFlags(argv);
  if (flags.has('help')) return 'help';
  const config: Record<string, unknown> = { ...DEFAULTS };
  const given = new Set<keyof Config>();
  for (const spec of KEYS) {
    const raw = flags.get(spec.flag) ?? env[spec.env];
    if (raw === undefined || raw === '') continue;
    config[spec.key] = convert(spec, raw);
    given.add(spec.key);
  }
  for (const name of flags.keys()) {
    if (!KEYS.some((k) => k.flag === name)) throw new ConfigError(`unknown flag --${name} (see --help)`);
  }
  validateAddress('--listen / WEFT_LISTEN', config.listen as string);
  validateAddress('--grpc-listen / WEFT_GRPC_LISTEN', config.grpcListen as string);
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new ConfigError('--tls-cert / WEFT_TLS_CERT and --tls-key / WEFT_TLS_KEY must be given together');
  }
  validateCluster(config);
  if (config.clusterSecret && !given.has('shutdownGraceMs')) config.shutdownGraceMs = CLUSTER_SHUTDOWN_GRACE_MS;
  const password = config.adminPassword as string | undefined;
  if (password !== undefined && (password.length < 5 || password.length > 100)) {
    throw new ConfigError('--admin-password / WEFT_ADMIN_PASSWORD must be 5 to 100 characters');
  }
  const username = config.adminUsername as string;
  if (username.length < 4 || username.length > 100) {
    throw new ConfigError('--admin-username / WEFT_ADMIN_USERNAME must be 4 to 100 characters');
  }
  return config as unknown as Config;
}

/** Reads this process's flags and environment. */
export function loadConfig(): Config | 'help' {
  return parseConfig(process.argv.slice(2), process.env);
}

/** How the admin CLI (`weft`) was invoked: its arguments, and WEFT_SESSION_FILE (where the
 * session is kept instead of ~/.config/weft/session.json). */
export function loadAdminCliInvocation(): { args: string[]; sessionFile?: string } {
  const sessionFile = process.env.WEFT_SESSION_FILE;
  return { args: process.argv.slice(2), sessionFile: sessionFile ? sessionFile : undefined };
}

/** True when the module at `moduleUrl` is the script this process was started with. */
export function isEntryPoint(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

function parseFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') {
      flags.set('help', 'true');
      continue;
    }
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument ${arg} (see --help)`);
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (!KEYS.some((k) => k.flag === name)) throw new ConfigError(`unknown flag --${name} (see --help)`);
    if (eq > 0) {
      flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new ConfigError(`${arg} needs a value`);
      flags.set(arg.slice(2), value);
      i++;
    }
  }
  return flags;
}

function convert(spec: KeySpec, raw: string): unknown {
  const name = `--${spec.flag} / ${spec.env}`;
  if (spec.kind === 'string') return raw;
  if (spec.kind === 'choice') {
    const choices = spec.choices ?? [];
    if (!choices.includes(raw)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}`);
    return raw;
  }
  if (spec.kind === 'duration' || spec.kind === 'bytes') return convertQuantity(spec, name, raw);
  const n = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < (spec.min ?? -Infinity) || n > (spec.max ?? Infinity)) {
    throw new ConfigError(`${name} must be an integer from ${spec.min} to ${spec.max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

const UNITS = {
  duration: { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 } as Record<string, number>,
  bytes: { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 } as Record<string, number>,
};

/** A duration (`90s`, `30m`, `24h`, `7d`) or a size (`65536`, `512MB`, `8GiB`); `0` = no limit
 * (or what `spec.zero` says). */
function convertQuantity(spec: KeySpec, name: string, raw: string): number {
  const kind = spec.kind as 'duration' | 'bytes';
  const zero = spec.zero ?? 'no limit';
  const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(raw.trim());
  const unit = m?.[1] === '0' && m[2] === '' ? 1 : UNITS[kind][m?.[2].toLowerCase() ?? 'x'];
  const example = kind === 'duration' ? 'a duration such as 24h, 90m or 7d' : 'a size such as 65536, 512MB or 8GiB';
  if (!m || unit === undefined) throw new ConfigError(`${name} must be ${example} (or 0 for ${zero}), got ${JSON.stringify(raw)}`);
  const value = Math.round(Number(m[1]) * unit);
  const text = (n: number) => (kind === 'duration' ? durationText(n) : `${n} bytes`);
  if (value !== 0 && value < (spec.min ?? 0)) {
    throw new ConfigError(`${name} must be 0 (${zero}) or at least ${text(spec.min ?? 0)}, got ${JSON.stringify(raw)}`);
  }
  if (value > (spec.max ?? Infinity)) throw new ConfigError(`${name} must be at most ${text(spec.max!)}, got ${JSON.stringify(raw)}`);
  return value;
}

function durationText(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}

function validateCluster(config: Record<string, unknown>): void {
  const secret = config.clusterSecret as string | undefined;
  if (secret === undefined) return;
  if (secret.length < 32) throw new ConfigError('--cluster-secret / WEFT_CLUSTER_SECRET must be at least 32 characters');
  if (!config.natsUrl) throw new ConfigError('--cluster-secret / WEFT_CLUSTER_SECRET needs --nats-url / WEFT_NATS_URL (the cluster\'s NATS servers)');
  const previous = config.clusterPreviousSecret as string | undefined;
  if (previous !== undefined && previous.length < 32) throw new ConfigError('--cluster-previous-secret / WEFT_CLUSTER_PREVIOUS_SECRET must be at least 32 characters');
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(config.clusterName as string)) {
    throw new ConfigError('--cluster-name / WEFT_CLUSTER_NAME must be 1 to 64 characters of A-Z a-z 0-9 _ -');
  }
}

function validateAddress(name: string, value: string): void {
  const m = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new ConfigError(`${name} must be host:port, got ${JSON.stringify(value)}`);
}

/** Splits host:port (IPv6 in brackets) into its parts. */
export function splitAddress(value: string): { host: string; port: number } {
  const idx = value.lastIndexOf(':');
  return { host: value.slice(0, idx).replace(/^\[|\]$/g, ''), port: Number(value.slice(idx + 1)) };
}

export function helpText(): string {
  const lines = KEYS.map((k) => `  --${k.flag.padEnd(26)} ${k.env.padEnd(30)} ${k.help}`);
  return ['Usage: weft-controller [flags]', '', 'Runs one Weft controller node.', '', 'Flags (and environment variables):', ...lines, '  --help'].join('\n');
}
