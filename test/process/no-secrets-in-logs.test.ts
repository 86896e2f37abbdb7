// No secret ever reaches the logs: a real node process at log level debug runs a full API flow
// (logins, identities with passwords set through /authenticators, failed logins, password
// changes, bad tokens, enrollment JWTs, logout); its whole output is then searched for every
// password, token and private-key PEM used, and none may appear.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { killAllCliNodes, startCliNode, type CliNode } from '../support/cli-node.js';

const ADMIN_PASSWORD = 'Adm1n-S3cret-Pw!';

let node: CliNode | undefined;
let dataDir: string | undefined;
after(async () => {
  node?.kill();
  killAllCliNodes();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test('a full API flow at log level debug logs no password, token or private key', { timeout: 180_000 }, async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'weft-secrets-'));
  node = await startCliNode({ dataDir, env: { WEFT_ADMIN_PASSWORD: ADMIN_PASSWORD, WEFT_LOG_LEVEL: 'debug' } });
  const secrets: string[] = [ADMIN_PASSWORD];
  const admin = await node.login('admin', ADMIN_PASSWORD);
  secrets.push(admin);

  const people: { id: string; username: string; password: string; authenticatorId: string }[] = [];
  for (const [i, password] of ['Pa55word-one!', 'second "quoted" pw', 'pässwörd-drei-3'].entries()) {
    const created = await node.request('POST', '/identities', { name: `person-${i}`, type: 'User', isAdmin: false }, admin);
    assert.equal(created.status, 201, created.text);
    const username = `person-${i}-login`;
    const auth = await node.request('POST', '/authenticators', { method: 'updb', identityId: created.body.data.id, username, password }, admin);
    assert.equal(auth.status, 201, auth.text);
    secrets.push(password);
    people.push({ id: created.body.data.id, username, password, authenticatorId: auth.body.data.id });
  }
  for (const person of people) {
    const token = await node.login(person.username, person.password);
    secrets.push(token);
    assert.equal((await node.request('GET', '/current-api-session', undefined, token)).status, 200);
  }
  for (const wrong of ['Wr0ng-guess-1', 'another-wrong-guess', 'x'.repeat(120), 'tiny']) {
    const res = await node.request('POST', '/authenticate?method=password', { username: people[0]!.username, password: wrong });
    assert.notEqual(res.status, 200);
    secrets.push(wrong);
  }
  const unknown = await node.request('POST', '/authenticate?method=password', { username: 'no-such-user', password: 'Unkn0wn-user-pw' });
  assert.equal(unknown.status, 401);
  secrets.push('Unkn0wn-user-pw');

  // A password change, and one refused by validation (the refused value must not be logged either).
  const changed = await node.request('PATCH', `/authenticators/${people[1]!.authenticatorId}`, { password: 'Ch4nged-Passw0rd' }, admin);
  assert.equal(changed.status, 200, changed.text);
  secrets.push('Ch4nged-Passw0rd');
  const refused = await node.request('PATCH', `/authenticators/${people[1]!.authenticatorId}`, { password: 'shrt' }, admin);
  assert.equal(refused.status, 400);
  secrets.push('shrt');
  const relogin = await node.login(people[1]!.username, 'Ch4nged-Passw0rd');
  secrets.push(relogin);

  // Made-up and stale tokens.
  const forged = '6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab';
  assert.equal((await node.request('GET', '/identities', undefined, forged)).status, 401);
  secrets.push(forged);
  assert.equal((await node.request('DELETE', '/current-api-session', undefined, relogin)).status, 200);
  assert.equal((await node.request('GET', '/current-identity', undefined, relogin)).status, 401);

  // An edge router's enrollment token and JWT (signed with the node's CA key).
  const router = await node.request('POST', '/edge-routers', { name: 'edge-1' }, admin);
  assert.equal(router.status, 201, router.text);
  const detail = await node.request('GET', `/edge-routers/${router.body.data.id}`, undefined, admin);
  for (const field of ['enrollmentToken', 'enrollmentJwt']) if (typeof detail.body.data[field] === 'string') secrets.push(detail.body.data[field]);

  // Private keys of the node: every base64 line of their PEM bodies.
  for (const file of ['ca.key.pem', 'server.key.pem']) {
    const pem = readFileSync(join(dataDir, 'pki', file), 'utf8');
    secrets.push(...pem.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----')));
  }

  assert.equal(await node.stop(), 0);
  const output = `${node.stdout()}\n${node.stderr()}`;
  const logLines = output.split('\n').filter((l) => l.startsWith('{'));
  assert.ok(logLines.some((l) => l.includes('"level":"debug"')), 'debug lines were written');
  assert.ok(logLines.filter((l) => l.includes('"msg":"request"')).length >= 20, 'every request was logged');
  assert.ok(!output.includes('PRIVATE KEY'), 'no private key PEM');
  for (const secret of secrets) {
    assert.ok(!output.includes(secret), `the logs contain a secret: ${secret.slice(0, 6)}…`);
    assert.ok(!output.includes(JSON.stringify(secret).slice(1, -1)), `the logs contain a JSON-escaped secret: ${secret.slice(0, 6)}…`);
  }
});
