// An embedded node on a NATS bus (WEFT_NATS_URL without a cluster secret) through a NATS outage:
// its log says "connection lost" and "connection regained" once each, and nothing every beat
// (it runs the node registry's 5 s heartbeat, never the cluster's membership heartbeats).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { killAllCliNodes, startCliNode, type CliNode } from '../support/cli-node.js';
import { findNatsServer, freePort, launchNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const PASSWORD = 'embedded-nats-Passw0rd!';
/** Longer than the node registry's heartbeat interval (5 s): at least one beat falls in the outage. */
const OUTAGE_MS = 7_000;

const dirs: string[] = [];
const servers: NatsServerHandle[] = [];
let node: CliNode | undefined;

after(async () => {
  killAllCliNodes();
  await node?.kill();
  await Promise.all(servers.map((s) => s.stop()));
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function lines(text: string, msg: string): number {
  return text.split('\n').filter((l) => l.includes(`"msg":"${msg}`)).length;
}

test('an embedded node on NATS logs losing and regaining NATS once each, and no heartbeat line', { timeout: 120_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'weft-embedded-nats-'));
  dirs.push(root);
  const port = await freePort();
  const launch = async () => {
    const server = await launchNatsServer(findNatsServer(), ['-a', '127.0.0.1', '-p', String(port)], port);
    servers.push(server);
    return server;
  };
  const first = await launch();
  // A loaded machine may take a while to start a node: the test is about the outage, not the start.
  node = await startCliNode({ dataDir: join(root, 'data'), env: { WEFT_NATS_URL: first.url, WEFT_ADMIN_PASSWORD: PASSWORD }, readyTimeoutMs: 60_000 });
  await node.login('admin', PASSWORD);

  first.kill();
  await first.stop();
  await new Promise((r) => setTimeout(r, OUTAGE_MS));
  await launch();
  // Back on NATS: the node serves logins again (its actors answer over the bus).
  let answered = false;
  for (const until = Date.now() + 20_000; Date.now() < until && !answered;) {
    answered = await node.login('admin', PASSWORD).then(() => true, () => false);
    if (!answered) await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(answered, `no login answered after NATS came back${output(node)}`);

  const log = node.stdout() + node.stderr();
  assert.equal(lines(log, 'NATS connection lost'), 1, output(node));
  assert.equal(lines(log, 'NATS connection regained'), 1, output(node));
  assert.equal(lines(log, 'heartbeat'), 0, output(node));
  assert.equal(node.stderr().includes('NatsError'), false, output(node));
  assert.equal(await node.stop(), 0, output(node));
});

function output(n: CliNode): string {
  return `\n--- stdout ---\n${n.stdout()}\n--- stderr ---\n${n.stderr()}`;
}
