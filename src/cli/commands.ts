// The `weft` commands: each turns its arguments into management API calls and prints the
// answer as JSON (default) or, with --output table, as an aligned table.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AdminClient, CliError, describeFailure, managementBase } from './admin-client.js';
import { flag, intFlag, type ParsedArgs } from './cli-args.js';
import { clusterCommand } from './cluster-commands.js';
import { pollUntil } from './poll-until.js';
import { loadSession, removeSession, saveSession } from './session-file.js';
import { columnsOf, formatTable } from './table.js';

/** Where a command reads and writes: stdout/stderr, stdin (passwords) and the session file. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  sessionFile: string;
}

type Output = 'json' | 'table';

export async function runCommand(name: string, parsed: ParsedArgs, io: CliIo): Promise<void> {
  const args = parsed.positionals.slice(1);
  const output = outputOf(parsed);
  switch (name) {
    case 'login':
      return login(parsed, io);
    case 'logout':
      return logout(io);
    case 'list': {
      const [resource] = operands(args, ['resource']);
      const query = new URLSearchParams();
      const filter = flag(parsed, 'filter');
      const limit = intFlag(parsed, 'limit');
      const offset = intFlag(parsed, 'offset');
      if (filter !== undefined) query.set('filter', filter);
      if (limit !== undefined) query.set('limit', String(limit));
      if (offset !== undefined) query.set('offset', String(offset));
      const text = query.toString();
      return print(io, output, resource, await (await client(io)).call('GET', `/${segment(resource)}${text ? `?${text}` : ''}`));
    }
    case 'get': {
      const [resource, id] = operands(args, ['resource', 'id']);
      return print(io, output, resource, await (await client(io)).call('GET', `/${segment(resource)}/${encodeURIComponent(id)}`));
    }
    case 'create': {
      const [resource] = operands(args, ['resource']);
      const created = await (await client(io)).call('POST', `/${segment(resource)}`, await bodyOf(parsed));
      return print(io, output, 'created', { id: created.id });
    }
    case 'delete': {
      const [resource, id] = operands(args, ['resource', 'id']);
      await (await client(io)).call('DELETE', `/${segment(resource)}/${encodeURIComponent(id)}`);
      return print(io, output, 'deleted', { id, deleted: true });
    }
    case 'policy-advice': {
      const [identityId, serviceId] = operands(args, ['identityId', 'serviceId']);
      const path = `/identities/${encodeURIComponent(identityId)}/policy-advice/${encodeURIComponent(serviceId)}`;
      return print(io, output, 'policy-advice', await (await client(io)).call('GET', path));
    }
    case 'snapshot':
      operands(args, []);
      return print(io, output, 'snapshot', await (await client(io)).call('POST', '/database/snapshot'));
    case 'integrity':
      return integrity(parsed, args, io, output);
    case 'cluster':
      return clusterCommand(parsed, args, () => client(io), io.out, output);
    default:
      throw new CliError(`unknown command ${JSON.stringify(name)} (see weft --help)`, 2);
  }
}

async function login(parsed: ParsedArgs, io: CliIo): Promise<void> {
  const url = required(parsed, 'url');
  const username = required(parsed, 'username');
  let password = flag(parsed, 'password');
  if (password === undefined && parsed.flags.get('password-stdin') === true) password = (await io.readStdin()).split(/\r?\n/)[0];
  if (!password) throw new CliError('give --password <p> or --password-stdin', 2);
  const caPath = flag(parsed, 'ca');
  const base = managementBase(url);
  const api = new AdminClient(base, caPath === undefined ? undefined : await readCa(caPath));
  const res = await api.send('POST', '/authenticate?method=password', { username, password });
  const token = res.headers['zt-session'];
  if (res.status !== 200 || typeof token !== 'string') throw new CliError(`login failed: ${describeFailure(res)}`);
  await saveSession(io.sessionFile, { url: base, ca: caPath === undefined ? null : resolve(caPath), token, username, savedAt: new Date().toISOString() });
  io.out(JSON.stringify({ loggedIn: true, url: base, username, expiresAt: res.body?.data?.expiresAt ?? null, sessionFile: io.sessionFile }, null, 2));
}

async function logout(io: CliIo): Promise<void> {
  const api = await client(io);
  const res = await api.send('DELETE', '/current-api-session');
  await removeSession(io.sessionFile);
  io.out(JSON.stringify({ loggedOut: true, sessionEnded: res.status === 200 }, null, 2));
}

/** `integrity check|fix` start a run and (unless --no-wait) wait for its results; `results` reads them. */
async function integrity(parsed: ParsedArgs, args: string[], io: CliIo, output: Output): Promise<void> {
  const [action] = operands(args, ['check|fix|results']);
  const api = await client(io);
  if (action === 'check' || action === 'fix') {
    await api.call('POST', action === 'check' ? '/database/check-data-integrity' : '/database/fix-data-integrity');
    if (parsed.flags.get('no-wait') === true) return print(io, output, 'started', { started: action });
  } else if (action !== 'results') {
    throw new CliError(`weft integrity takes check, fix or results, got ${JSON.stringify(action)}`, 2);
  }
  const read = () => api.call('GET', '/database/data-integrity-results');
  // `results` reads once; a run just started is waited for.
  const { value: details, done } = action === 'results'
    ? { value: await read(), done: true }
    : await pollUntil(read, (d) => !d.inProgress, (intFlag(parsed, 'timeout') ?? 600) * 1000);
  if (!done) throw new CliError('the integrity run did not finish in time (see --timeout)');
  if (output === 'json') return io.out(JSON.stringify(details, null, 2));
  io.out(formatTable(details.results ?? [], columnsOf('integrity-results')));
  const fixed = (details.results ?? []).filter((r: { fixed: boolean }) => r.fixed).length;
  io.err(`${(details.results ?? []).length} problem(s), ${fixed} fixed${details.tooManyErrors ? ' (more not shown)' : ''}${details.error ? `; error: ${details.error}` : ''}`);
}

async function client(io: CliIo): Promise<AdminClient> {
  const session = await loadSession(io.sessionFile);
  return new AdminClient(session.url, session.ca ? await readCa(session.ca) : undefined, session.token);
}

async function readCa(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the CA file ${path}: ${(err as Error).message}`, 2);
  }
}

async function bodyOf(parsed: ParsedArgs): Promise<unknown> {
  const data = flag(parsed, 'data');
  const file = flag(parsed, 'file');
  if ((data === undefined) === (file === undefined)) throw new CliError('give exactly one of --data <json> or --file <path>', 2);
  let text = data;
  if (file !== undefined) {
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`, 2);
    }
  }
  try {
    return JSON.parse(text!);
  } catch (err) {
    throw new CliError(`the body is not valid JSON: ${(err as Error).message}`, 2);
  }
}

function print(io: CliIo, output: Output, resource: string, data: unknown): void {
  if (output === 'json') return io.out(JSON.stringify(data, null, 2));
  const rows = (Array.isArray(data) ? data : [data]) as Record<string, unknown>[];
  const columns = resource === 'created' || resource === 'deleted' || resource === 'started' ? Object.keys(rows[0] ?? {}) : columnsOf(resource);
  io.out(formatTable(rows, columns));
}

function outputOf(parsed: ParsedArgs): Output {
  const output = flag(parsed, 'output') ?? 'json';
  if (output !== 'json' && output !== 'table') throw new CliError(`--output must be json or table, got ${JSON.stringify(output)}`, 2);
  return output;
}

function required(parsed: ParsedArgs, name: string): string {
  const value = flag(parsed, name);
  if (value === undefined || value === '') throw new CliError(`--${name} is required`, 2);
  return value;
}

/** Exactly the named operands, or a usage error naming them. */
function operands(args: string[], names: string[]): string[] {
  if (args.length !== names.length) {
    throw new CliError(`expected ${names.length ? names.map((n) => `<${n}>`).join(' ') : 'no arguments'}, got ${args.length ? args.join(' ') : 'none'}`, 2);
  }
  return args;
}

/** A resource is a URL segment such as `identities` or `service-policies`. */
function segment(resource: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(resource)) throw new CliError(`not a resource name: ${JSON.stringify(resource)}`, 2);
  return resource;
}
