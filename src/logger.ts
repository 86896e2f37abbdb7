// Structured JSON logs, one object a line on stdout (stderr for warnings and errors). Callers
// pass fields; nothing here ever receives a password, token or key.

export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(level: Level, base: Record<string, unknown> = {}, sink = defaultSink): Logger {
  const plainBase = isPlain(base);
  // The entry's own keys and the base's: a field with one of these names overrides it, which
  // the general path below does.
  const taken = new Set(['time', 'level', 'msg', ...Object.keys(base)]);
  const baseText = JSON.stringify(base).slice(1, -1);
  const write = (at: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    // Flat entries with no secret-looking field and no key material need no replacer walk, and
    // their line is put together as text, without merging objects (this runs once a request).
    if (plainBase && (fields === undefined || isPlain(fields, taken)) && !msg.includes('PRIVATE KEY-----')) {
      const fieldsText = fields === undefined ? '{}' : JSON.stringify(fields);
      let line = `{"time":"${now()}","level":"${at}","msg":${JSON.stringify(msg)}`;
      if (baseText) line += `,${baseText}`;
      sink(at, fieldsText.length > 2 ? `${line},${fieldsText.slice(1)}` : `${line}}`);
      return;
    }
    sink(at, JSON.stringify({ time: now(), level: at, msg, ...base, ...fields }, redactingReplacer));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, sink),
  };
}

/** Lines waiting to be written, per stream: one write per event-loop turn, not one per line. */
const buffered = { out: [] as string[], err: [] as string[] };
let flushScheduled = false;

function flushLogs(): void {
  flushScheduled = false;
  if (buffered.out.length > 0) process.stdout.write(`${buffered.out.splice(0).join('\n')}\n`);
  if (buffered.err.length > 0) process.stderr.write(`${buffered.err.splice(0).join('\n')}\n`);
}
process.once('exit', flushLogs);

function defaultSink(level: Level, line: string): void {
  (ORDER[level] >= ORDER.warn ? buffered.err : buffered.out).push(line);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushLogs);
  }
}

/** Field names whose values are never written, whatever a caller passes (a safety net: callers
 * must not pass secrets in the first place). */
const SECRET_FIELD = /^(?:.*password.*|.*passwd.*|.*secret.*|token|.*token(?:hash)?|zt-session|authorization|cookie|set-cookie|salt|.*hash|jwt|.*privatekey.*|.*keypem|key|otp|totp|recoverycodes?|code_verifier)$/i;
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

/** Field names already tested against SECRET_FIELD (a small, fixed vocabulary in practice). */
const secretName = new Map<string, boolean>();

function isSecretName(key: string): boolean {
  let secret = secretName.get(key);
  if (secret === undefined) {
    secret = SECRET_FIELD.test(key);
    if (secretName.size < 10_000) secretName.set(key, secret);
  }
  return secret;
}

/** True when every value is a boolean or null, or a number or a string without key material
 * under a name that does not look secret (and not in `taken`): such fields serialise exactly as
 * the redacting replacer would leave them. */
function isPlain(fields: Record<string, unknown>, taken?: Set<string>): boolean {
  for (const key in fields) {
    if (taken?.has(key)) return false;
    const value = fields[key];
    if (value === undefined || value === null || typeof value === 'boolean') continue;
    if (typeof value === 'string' ? value.includes('PRIVATE KEY-----') : typeof value !== 'number') return false;
    if (isSecretName(key)) return false;
  }
  return true;
}

/** The ISO time, formatted once per millisecond. */
let lastMs = 0;
let lastIso = '';
function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

function redactingReplacer(key: string, value: unknown): unknown {
  if (key !== '' && SECRET_FIELD.test(key) && value !== null && value !== undefined && typeof value !== 'boolean') return '[redacted]';
  if (value instanceof Error) return { name: value.name, message: redactText(value.message), stack: value.stack === undefined ? undefined : redactText(value.stack) };
  if (typeof value === 'string') return redactText(value);
  return value;
}

function redactText(text: string): string {
  return text.includes('PRIVATE KEY-----') ? text.replace(PRIVATE_KEY_PEM, '[redacted private key]') : text;
}
