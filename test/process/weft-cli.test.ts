// The admin CLI `weft` as a child process against a real node process: login (session file
// 0600, no password kept), create, list (JSON and table), get, delete, policy advice,
// integrity check, snapshot, and exit codes for refused usage and failed calls.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { killAllCliNodes, originOf, startCliNode, type CliNode } from '../support/cli-node.js';

const WEFT_JS = fileURLToPath(new URL('../../src/cli/weft.js', import.meta.url));
const PASSWORD = 'cli-admin-Passw0rd';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('weft (admin CLI)', () => {
  let node: CliNode;
  let dir: string;
  let sessionFile: string;

  const weft = (args: string[], opts: { input?: string; session?: string } = {}): Promise<Run> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, WEFT_SESSION_FILE: opts.session ?? sessionFile };
      const proc = spawn(process.execPath, [WEFT_JS, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      proc.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
      proc.once('error', reject);
      proc.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      proc.stdin.end(opts.input ?? '');
    });
  const ok = async (args: string[], opts?: { input?: string }) => {
    const run = await weft(args, opts);
    assert.equal(run.code, 0, `weft ${args.join(' ')}\n${run.stdout}\n${run.stderr}`);
    return run.stdout;
  };
  const json = async (args: string[]) => JSON.parse(await ok(args));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-admin-cli-'));
    sessionFile = join(dir, 'session', 'session.json');
    node = await startCliNode({ dataDir: join(dir, 'data'), env: { WEFT_ADMIN_PASSWORD: PASSWORD } });
  });
  after(async () => {
    node?.kill();
    killAllCliNodes();
    await rm(dir, { recursive: true, force: true });
  });

  it('logs in and keeps the session owner-only, without the password', async () => {
    const out = await json(['login', '--url', originOf(node.api), '--ca', node.ca, '--username', 'admin', '--password', PASSWORD]);
    assert.equal(out.loggedIn, true);
    assert.equal(out.url, node.api);
    assert.equal(statSync(sessionFile).mode & 0o777, 0o600);
    const saved = JSON.parse(readFileSync(sessionFile, 'utf8'));
    assert.equal(saved.url, node.api);
    assert.equal(saved.ca, node.ca);
    assert.match(saved.token, /^[0-9a-f-]{36}$/);
    assert.ok(!readFileSync(sessionFile, 'utf8').includes(PASSWORD));
    // --password-stdin works too (and replaces the session).
    const piped = await weft(['login', '--url', node.api, '--ca', node.ca, '--username', 'admin', '--password-stdin'], { input: `${PASSWORD}\n` });
    assert.equal(piped.code, 0, piped.stderr);
    assert.notEqual(JSON.parse(readFileSync(sessionFile, 'utf8')).token, saved.token);
  });

  it('refuses a wrong password with exit 1 and the API error', async () => {
    const run = await weft(['login', '--url', node.api, '--ca', node.ca, '--username', 'admin', '--password', 'wrong-password'], { session: join(dir, 'other.json') });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /INVALID_AUTH/);
  });

  it('tells a login without --ca to pass the node\'s CA, with exit 1', async () => {
    const run = await weft(['login', '--url', node.api, '--username', 'admin', '--password', PASSWORD], { session: join(dir, 'no-ca.json') });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cannot reach .*: .*certificate.* \(pass the node's CA with --ca; a node keeps it in <data-dir>\/pki\/ca\.pem\)/);
  });

  it('creates, lists (JSON and table), gets, advises on policy and deletes', async () => {
    const alice = (await json(['create', 'identities', '--data', '{"name":"cli-alice","type":"User","isAdmin":false,"roleAttributes":["cli"]}'])).id;
    const bob = (await json(['create', 'identities', '--data', '{"name":"cli-bob","type":"User","isAdmin":true}'])).id;
    const file = join(dir, 'service.json');
    writeFileSync(file, JSON.stringify({ name: 'cli-service', encryptionRequired: true }));
    const service = (await json(['create', 'services', '--file', file])).id;
    await json(['create', 'service-policies', '--data', JSON.stringify({ name: 'cli-dial', type: 'Dial', semantic: 'AllOf', identityRoles: ['#cli'], serviceRoles: [`@${service}`] })]);

    const listed = await json(['list', 'identities', '--filter', 'name contains "cli-"']);
    assert.deepEqual(listed.map((i: { name: string }) => i.name).sort(), ['cli-alice', 'cli-bob']);
    assert.equal((await json(['list', 'identities', '--filter', 'name contains "cli-"', '--limit', '1'])).length, 1);

    const table = (await ok(['list', 'identities', '--filter', 'name contains "cli-" sort by name', '--output', 'table'])).trimEnd().split('\n');
    assert.match(table[0]!, /^ID\s+NAME\s+TYPE\s+IS_ADMIN\s+ROLE_ATTRIBUTES$/);
    assert.equal(table.length, 3);
    const nameAt = table[0]!.indexOf('NAME');
    const adminAt = table[0]!.indexOf('IS_ADMIN');
    assert.ok(table[1]!.startsWith(alice));
    assert.equal(table[1]!.slice(nameAt).split(/\s{2,}/)[0], 'cli-alice');
    assert.equal(table[1]!.slice(adminAt).split(/\s+/)[0], 'false');
    assert.equal(table[2]!.slice(adminAt).split(/\s+/)[0], 'true');
    assert.match(table[1]!, /\s+cli$/);

    const got = await json(['get', 'identities', alice]);
    assert.equal(got.name, 'cli-alice');
    assert.deepEqual(got.roleAttributes, ['cli']);
    const one = (await ok(['get', 'services', service, '-o', 'table'])).trimEnd().split('\n');
    assert.match(one[0]!, /^ID\s+NAME/);
    assert.match(one[1]!, new RegExp(`^${service}\\s+cli-service`));

    const advice = await json(['policy-advice', alice, service]);
    assert.equal(advice.isDialAllowed, true);
    assert.equal(advice.isBindAllowed, false);
    assert.equal((await json(['policy-advice', bob, service])).isDialAllowed, false);
    const adviceTable = await ok(['policy-advice', alice, service, '--output', 'table']);
    assert.match(adviceTable, /IS_DIAL_ALLOWED/);
    assert.match(adviceTable, /cli-alice\s+cli-service\s+true\s+false/);

    assert.deepEqual(await json(['delete', 'identities', bob]), { id: bob, deleted: true });
    const gone = await weft(['get', 'identities', bob]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /HTTP 404 NOT_FOUND/);
  });

  it('runs an integrity check and reads its results', async () => {
    const check = await json(['integrity', 'check']);
    assert.equal(check.inProgress, false);
    assert.equal(check.fixingErrors, false);
    assert.deepEqual(check.results, []);
    const table = await weft(['integrity', 'results', '--output', 'table']);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^FIXED\s+DESCRIPTION$/m);
    assert.match(table.stderr, /0 problem\(s\), 0 fixed/);
  });

  it('takes a snapshot, then is told to wait', async () => {
    const snap = await json(['snapshot']);
    assert.ok(snap.path.startsWith(join(dir, 'data', 'snapshots')));
    const again = await weft(['snapshot']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /HTTP 429 RATE_LIMITED/);
  });

  it('exits 2 on bad usage and 1 when not logged in', async () => {
    const help = await weft(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: weft/);
    for (const args of [['frobnicate'], ['list'], ['get', 'identities'], ['list', 'identities', '--bogus'], ['list', 'identities', '--output', 'yaml'], ['create', 'identities', '--data', '{nope']]) {
      const run = await weft(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^weft: /);
    }
    const anonymous = await weft(['list', 'identities'], { session: join(dir, 'nobody.json') });
    assert.equal(anonymous.code, 1);
    assert.match(anonymous.stderr, /not logged in/);
  });
});
