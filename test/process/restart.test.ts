// First start and restart of the real process: the generated admin password (printed once,
// stored owner-only), file modes of the data dir and keys, a clean SIGTERM, and a second start
// on the same data dir that keeps the CA, the data and the password and prints nothing again.

import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Agent } from 'undici';
import { killAllCliNodes, startCliNode, type CliNode } from '../support/cli-node.js';

const PASSWORD_LINE = /Default admin created: username "admin", password (\S+)/g;

const dirs: string[] = [];
const nodes: CliNode[] = [];

after(async () => {
  killAllCliNodes();
  await Promise.all(nodes.map((n) => n.kill()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<CliNode> {
  const node = await startCliNode({ dataDir });
  nodes.push(node);
  return node;
}

async function mode(path: string): Promise<string> {
  return ((await stat(path)).mode & 0o777).toString(8).padStart(4, '0');
}

function output(node: CliNode): string {
  return `\n--- stdout ---\n${node.stdout()}\n--- stderr ---\n${node.stderr()}`;
}

test('first start generates the admin password once; a restart keeps CA, data and password', { timeout: 300_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'weft-restart-'));
  dirs.push(root);
  const dataDir = join(root, 'data');

  // ---- first start, no WEFT_ADMIN_PASSWORD ----
  const first = await start(dataDir);
  const printed = [...first.stdout().matchAll(PASSWORD_LINE)];
  assert.equal(printed.length, 1, `the password line is printed exactly once${output(first)}`);
  const password = printed[0][1];

  const passwordFile = join(dataDir, 'admin-password');
  assert.equal(await mode(passwordFile), '0600', 'admin-password is owner-only');
  assert.equal((await readFile(passwordFile, 'utf8')).trim(), password, 'admin-password holds the printed password');
  assert.equal(await mode(dataDir), '0700', 'the data dir is owner-only');
  assert.equal(await mode(join(dataDir, 'pki', 'ca.key.pem')), '0600', 'the CA key is owner-only');
  assert.equal(await mode(join(dataDir, 'pki', 'server.key.pem')), '0600', 'the server key is owner-only');
  assert.equal(first.ca, join(dataDir, 'pki', 'ca.pem'), 'the listening line names <data-dir>/pki/ca.pem');
  // The process runs with umask 077: no file or directory it created, LevelDB's own included,
  // is open to group or others, even between LevelDB's writes and their tightening.
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    assert.equal((await stat(path)).mode & 0o077, 0, `${path} is owner-only (${await mode(path)})`);
  }

  // The stored password (not only the printed one) logs in.
  const token = await first.login('admin', (await readFile(passwordFile, 'utf8')).trim());
  const created = await first.request('POST', '/identities', { name: 'survives-restart', type: 'User', isAdmin: false }, token);
  assert.equal(created.status, 201, created.text);
  const id: string = created.body.data.id;
  const caBefore = await readFile(join(dataDir, 'pki', 'ca.pem'));

  assert.equal(await first.stop('SIGTERM'), 0, `SIGTERM exits 0${output(first)}`);
  assert.match(first.stdout(), /"msg":"stopped"/, `a clean stop logs "stopped"${output(first)}`);
  assert.equal([...first.stdout().matchAll(PASSWORD_LINE)].length, 1, 'still printed only once');

  // ---- second start on the same data dir ----
  const second = await start(dataDir);
  assert.doesNotMatch(second.stdout(), /Default admin created/, `no password line on a restart${output(second)}`);
  assert.doesNotMatch(second.stdout(), new RegExp(password.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')), 'the password is never printed again');
  const caAfter = await readFile(join(dataDir, 'pki', 'ca.pem'));
  assert.ok(caBefore.equals(caAfter), 'ca.pem is unchanged byte for byte');
  assert.equal((await readFile(passwordFile, 'utf8')).trim(), password, 'admin-password is unchanged');
  assert.equal(await mode(passwordFile), '0600');
  assert.equal(await mode(dataDir), '0700');

  // The restarted server's certificate still verifies against the CA saved before the restart.
  const oldCaAgent = new Agent({ connect: { ca: caBefore.toString('utf8') } });
  try {
    const res = await fetch(`${second.api}/version`, { dispatcher: oldCaAgent } as RequestInit);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  } finally {
    await oldCaAgent.destroy();
  }

  const token2 = await second.login('admin', password);
  const got = await second.request('GET', `/identities/${id}`, undefined, token2);
  assert.equal(got.status, 200, `identity created before the restart: ${got.text}`);
  assert.equal(got.body.data.name, 'survives-restart');

  const list = await second.request('GET', '/identities?limit=-1', undefined, token2);
  assert.equal(list.status, 200, list.text);
  assert.ok(list.body.data.some((r: { id: string }) => r.id === id));

  assert.equal(await second.stop('SIGTERM'), 0, output(second));
  assert.match(second.stdout(), /"msg":"stopped"/);
});
