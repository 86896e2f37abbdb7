// Cluster: joining from a peer's snapshot with real processes (three nats-servers, Weft nodes as
// child processes) and a log bounded to 64 KiB: a fresh node joins after the log was trimmed; a
// node kept down past the retention re-joins by itself at start.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from 'nats';
import type { CliNode } from '../support/cli-node.js';
import { CliCluster } from '../support/cli-cluster.js';

const SECRET = 'snapshot-join-test-secret-0123456789abcdef';
const PASSWORD = 'admin-pass-1';
const STREAM = 'weft-snapjoin-log';

describe('cluster: join from a peer snapshot', { timeout: 180_000 }, () => {
  let cluster: CliCluster;
  let nc: NatsConnection;
  let a: CliNode;
  let token: string;

  const start = (name: string) => cluster.start(name);
  const firstSeq = async () => (await (await nc.jetstreamManager()).streams.info(STREAM)).state.first_seq;
  /** Creates identities through `node` until the log no longer holds `seq` (bounded). */
  const writeUntilTrimmed = async (node: CliNode, tag: string, seq: number): Promise<string[]> => {
    const names: string[] = [];
    for (let i = 0; (await firstSeq()) <= seq; i++) {
      assert.ok(i < 2_000, 'the log is never trimmed');
      const name = `${tag}-${i}-${'x'.repeat(800)}`;
      let res = await node.request('POST', '/identities', { name, type: 'User', isAdmin: false, roleAttributes: ['trim', tag] }, token);
      // A stopped member owns shards until membership calls it dead (3 s): such writes are refused, unstored.
      for (let retry = 0; res.status === 503 && retry < 40; retry++) {
        await new Promise((r) => setTimeout(r, 250));
        res = await node.request('POST', '/identities', { name, type: 'User', isAdmin: false, roleAttributes: ['trim', tag] }, token);
      }
      assert.equal(res.status, 201, res.text);
      names.push(name);
    }
    return names;
  };
  const findByName = async (node: CliNode, nodeToken: string, name: string) => {
    const res = await node.request('GET', `/identities?filter=${encodeURIComponent(`name="${name}"`)}`, undefined, nodeToken);
    assert.equal(res.status, 200, res.text);
    return res.body.data as { id: string; name: string }[];
  };
  const joins = (node: CliNode) => node.stdout().split('\n').filter((l) => l.includes('joined from a peer snapshot')).length;

  before(async () => {
    cluster = await CliCluster.start({
      natsServers: 3, env: { WEFT_CLUSTER_SECRET: SECRET, WEFT_CLUSTER_NAME: 'snapjoin', WEFT_LOG_MAX_BYTES: '65536', WEFT_ADMIN_PASSWORD: PASSWORD },
    });
    nc = await connect({ servers: cluster.nats.urls });
    a = await start('a');
    token = await a.login('admin', PASSWORD);
  });

  after(async () => {
    await nc?.close();
    await cluster?.close();
  });

  it('a fresh node joins after the log was trimmed and reads what was written before it joined', async () => {
    const early = await writeUntilTrimmed(a, 'early', 1);
    assert.ok((await firstSeq()) > 1);
    const b = await start('b');
    assert.equal(joins(b), 1, b.stdout());
    const bToken = await b.login('admin', PASSWORD);
    assert.equal((await findByName(b, bToken, early[0])).length, 1);
    // It follows the log from the snapshot's sequence: a write made through it is read on A.
    const made = await b.request('POST', '/identities', { name: 'made-on-b', type: 'User', isAdmin: false }, bToken);
    assert.equal(made.status, 201, made.text);
    assert.equal((await findByName(a, token, 'made-on-b')).length, 1);
  });

  it('a node kept down past the retention re-joins by itself when restarted', async () => {
    const c = await start('c');
    const cSeq = (await (await nc.jetstreamManager()).streams.info(STREAM)).state.last_seq;
    await c.stop('SIGKILL');
    const during = await writeUntilTrimmed(a, 'while-down', cSeq + 1);
    const again = await start('c');
    assert.ok(joins(again) >= 1, again.stdout());
    const cToken = await again.login('admin', PASSWORD);
    assert.equal((await findByName(again, cToken, during[during.length - 1])).length, 1);
  });
});
