// A cluster node whose store refuses the log's writes stops serving instead of recording the
// entries as refused (which only it would do): its apply loop ends, it leaves, and every request
// gets 503 REPLICA_FAILED. Against a real JetStream server.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { ClusterNode } from '../../../src/cluster/cluster-node.js';
import type { Command } from '../../../src/domain/commands.js';
import { ApiError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica } from '../../../src/store/replica.js';
import { delegatingKv } from '../../support/delegating-kv.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { record } from '../../support/memory-store.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function create(id: string): Command {
  return { at: '2026-01-01T00:00:00.000Z', origin: 'test', ops: [{ op: 'create', kind: 'identity-types', record: record(id, { name: id }) }] };
}

describe('a cluster node that cannot apply the log', { timeout: 60_000 }, () => {
  let server: NatsServerHandle;
  let dir: string;
  before(async () => {
    server = await startNatsServer({ jetstream: true });
    dir = await mkdtemp(join(tmpdir(), 'weft-cannot-apply-'));
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stops serving with 503 REPLICA_FAILED and leaves, instead of refusing the entry alone', async () => {
    const cluster = await ClusterNode.connect({ natsUrls: [server.url], secret: 's'.repeat(40), name: 'cannotapply' }, dir, 'n1', createLogger('silent'));
    const log = await cluster.openLog();
    const inner = new MemoryKv();
    let full = false;
    const kv = delegatingKv(inner, { batch: async (ops, opts) => (full ? Promise.reject(new Error('ENOSPC: no space left on device')) : inner.batch(ops, opts)) });
    await kv.open();
    const replica = new Replica(kv);
    await replica.open();
    let left = false;
    const applying = cluster.followLog(log, replica, async () => {
      left = true;
    });
    const barrier = cluster.barrier(log, replica);
    await log.append(create('before'));
    await barrier.sync();
    assert.ok(await replica.get('identity-types', 'before'));

    full = true;
    const seq = await log.append(create('after'));
    for (let i = 0; i < 100 && !left; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(left, true, 'the node left the membership');
    assert.ok(replica.appliedSeq < seq, 'the entry was not recorded as applied (or refused)');
    await assert.rejects(barrier.sync(), (err: unknown) => err instanceof ApiError && err.status === 503 && (err.apiCause as { code?: string }).code === 'REPLICA_FAILED');
    await applying.close();
    await log.close();
    await cluster.bus.close();
  });
});
