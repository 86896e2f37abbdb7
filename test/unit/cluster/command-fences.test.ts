// A command sent again after its shard owner was declared gone: JetStream keeps one entry per
// Nats-Msg-Id (also for appends racing from two servers), so a fence appended under the msg id
// of the earlier delivery's first entry either shuts that delivery out or finds its entry, never
// both. Against a real 3-server JetStream cluster. Then NodeClient's side: when it sends again,
// which reply it takes.
import { strict as assert } from 'node:assert';
import { after, before, describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { Proposer } from '../../../src/actors/proposer.js';
import { commandContextOf, withCommandContext } from '../../../src/actors/request-context.js';
import type { Bus } from '../../../src/bus/bus.js';
import { commandReply } from '../../../src/bus/command-reply.js';
import { CommandFences, EARLIER_DELIVERY_STORED } from '../../../src/cluster/command-fences.js';
import { commandMsgId, FENCED, type Command, type Op } from '../../../src/domain/commands.js';
import { resourceOf } from '../../../src/domain/registry.js';
import { ApiError } from '../../../src/errors.js';
import { NodeClient, type RecoveredOutcome } from '../../../src/gateway/node-client.js';
import { JetStreamLog } from '../../../src/log/jetstream-log.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica } from '../../../src/store/replica.js';
import { record } from '../../support/memory-store.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { DEFAULT_CLUSTER_SCOPE } from '../../../src/bus/subjects.js';

function causeCode(err: unknown): unknown {
  return err instanceof ApiError ? (err.apiCause as { code?: unknown } | undefined)?.code : undefined;
}

function createOp(id: string): Op {
  return { op: 'create', kind: 'identity-types', record: record(id, { name: id }) };
}

describe('fencing an earlier delivery (JetStream cluster)', { timeout: 120_000 }, () => {
  let nats: NatsClusterHandle;
  const connections: NatsConnection[] = [];
  const closing: Array<() => Promise<unknown>> = [];
  let streams = 0;

  before(async () => {
    nats = await startNatsCluster(3);
    connections.push(await connect({ servers: nats.urls[0] }), await connect({ servers: nats.urls[2] }));
  });
  after(async () => {
    for (const close of closing.reverse()) await close().catch(() => undefined);
    for (const nc of connections) await nc.close().catch(() => undefined);
    await nats?.stop();
  });

  /** One stream seen through two nodes' connections (to different servers), one replica. */
  async function setup() {
    const name = `fences-${++streams}`;
    const logs = connections.map((nc) => new JetStreamLog<Command>({ nc, stream: name, subject: `weft.v1.log.${name}`, replicas: 3 }));
    for (const log of logs) {
      await log.open();
      closing.push(() => log.close());
    }
    const kv = new MemoryKv();
    await kv.open();
    const replica = new Replica(kv);
    await replica.open();
    const following = logs[0].followBatches(0, (entries) => replica.applyBatch(entries));
    closing.push(() => following.close());
    const oldOwner = new Proposer(logs[0], replica, 'old-owner', 8_000);
    const fences = new CommandFences({ log: logs[1], nodeId: 'new-owner', resultOf: (seq) => replica.waitFor(seq, 10_000) });
    /** Delivery `attempt` of command `rid`, as handled by the old owner: proposes `ops` one by one. */
    const deliver = (rid: string, attempt: number, ...ops: Op[]) =>
      withCommandContext(commandContextOf({ rid, attempt, deadline: Date.now() + 10_000 }), async () => {
        for (const op of ops) await oldOwner.propose([op]);
      });
    return { logs, replica, fences, deliver };
  }

  it('jetstream-log - appends under one msg id racing from two servers store one entry, and both get its sequence', async () => {
    const { logs } = await setup();
    const rounds = 25;
    for (let i = 0; i < rounds; i++) {
      const msgId = commandMsgId(`race-${i}`, 0, 1);
      const [a, b] = await Promise.all(logs.map((log, n) => log.append({ at: 'x', origin: `n${n}`, ops: [] }, { msgId })));
      assert.equal(a, b, `round ${i}: both appends answer the one entry's sequence`);
    }
    assert.equal(await logs[0].lastSeq(), rounds, 'one entry per msg id');
    const again = await logs[1].append({ at: 'x', origin: 'later', ops: [] }, { msgId: commandMsgId('race-0', 0, 1) });
    assert.equal(again, 1, 'a later append under a held msg id answers the first entry\'s sequence');
    assert.equal(await logs[0].lastSeq(), rounds);
  });

  it('shuts the earlier delivery out: its first proposal meets the fence and it proposes nothing more', async () => {
    const { logs, replica, fences, deliver } = await setup();
    await fences.fence('rid-1', 1);
    const before = await logs[0].lastSeq();
    await assert.rejects(deliver('rid-1', 0, createOp('first'), createOp('second')), (err: unknown) => causeCode(err) === FENCED);
    assert.equal(await logs[0].lastSeq(), before, 'the earlier delivery stored nothing');
    assert.equal(await replica.get('identity-types', 'first'), undefined);
    assert.equal(await replica.get('identity-types', 'second'), undefined);
  });

  it('finds the entry of an earlier delivery that stored first, and refuses to let a second one handle it', async () => {
    const { replica, fences, deliver } = await setup();
    await deliver('rid-2', 0, createOp('stored'));
    assert.ok(await replica.get('identity-types', 'stored'));
    await assert.rejects(fences.fence('rid-2', 1), (err: unknown) => causeCode(err) === EARLIER_DELIVERY_STORED);
  });

  it('a fence racing the earlier delivery: exactly one of them holds the command', async () => {
    const { replica, fences, deliver } = await setup();
    const won = { fence: 0, delivery: 0 };
    for (let i = 0; i < 20; i++) {
      const rid = `rid-race-${i}`;
      const [delivery, fence] = await Promise.allSettled([deliver(rid, 0, createOp(`race-${i}`)), fences.fence(rid, 1)]);
      const stored = (await replica.get('identity-types', `race-${i}`)) !== undefined;
      if (fence.status === 'fulfilled') {
        won.fence++;
        assert.equal(delivery.status === 'rejected' && causeCode(delivery.reason), FENCED, `round ${i}: the fenced delivery was refused`);
        assert.equal(stored, false, `round ${i}: the fenced delivery stored nothing`);
      } else {
        won.delivery++;
        assert.equal(causeCode(fence.reason), EARLIER_DELIVERY_STORED, `round ${i}`);
        assert.equal(delivery.status, 'fulfilled', `round ${i}: the delivery that stored first succeeded`);
        assert.equal(stored, true, `round ${i}`);
      }
    }
    assert.equal(won.fence + won.delivery, 20);
  });

  it('a second re-send fences both earlier deliveries; a delivery already fenced stays shut out', async () => {
    const { fences, deliver } = await setup();
    await fences.fence('rid-3', 1);
    await fences.fence('rid-3', 2);
    await assert.rejects(deliver('rid-3', 1, createOp('third')), (err: unknown) => causeCode(err) === FENCED);
  });
  // Last: it kills a server of the cluster.
  it('jetstream-log - a msg id stays held across a stream leader change', async () => {
    const { logs } = await setup();
    const name = `fences-${streams}`;
    const held = await logs[0].append({ at: 'x', origin: 'before', ops: [] }, { msgId: 'held.0.1' });
    const jsm = await connections[0].jetstreamManager();
    const leader = (await jsm.streams.info(name)).cluster?.leader;
    const index = nats.names.indexOf(String(leader));
    assert.ok(index >= 0, `the stream has a leader among ${nats.names.join(', ')}: ${leader}`);
    await nats.killServer(index);
    // Through a connection to a server that still runs (append retries until a new leader answers).
    const log = logs[index === 0 ? 1 : 0];
    assert.equal(await log.append({ at: 'x', origin: 'after', ops: [] }, { msgId: 'held.0.1' }), held);
    const fresh = await log.append({ at: 'x', origin: 'after', ops: [] }, { msgId: 'fresh.0.1' });
    assert.equal(fresh, held + 1, 'the held msg id stored nothing');
    // JetStream API requests may time out while the meta leader moves too: asked again.
    const nc = index === 0 ? connections[1] : connections[0];
    let newLeader: string | undefined;
    for (let tries = 0; newLeader === undefined && tries < 10; tries++) {
      newLeader = await nc.jetstreamManager({ checkAPI: false }).then((m) => m.streams.info(name)).then((i) => i.cluster?.leader, () => undefined);
    }
    assert.notEqual(newLeader, undefined, 'the stream info answers again');
    assert.notEqual(newLeader, leader, 'the stream has a new leader');
  });
});

/** A bus whose first delivery of each command never answers (it reached a node that died) unless
 * the test answers it, and whose later deliveries are answered by `second`. */
function splitBus(second: (msg: Record<string, unknown>) => Promise<unknown>) {
  const sent: Record<string, unknown>[] = [];
  let answerFirst: ((reply: unknown) => void) | undefined;
  let failFirst: ((err: unknown) => void) | undefined;
  const bus = {
    request: (_subject: string, msg: Record<string, unknown>) => {
      sent.push(msg);
      if (msg.attempt === undefined) return new Promise((resolve, reject) => ((answerFirst = resolve), (failFirst = reject)));
      return second(msg);
    },
  } as unknown as Bus;
  return { bus, sent, answerFirst: (reply: unknown) => answerFirst!(reply), failFirst: (err: unknown) => failFirst!(err) };
}

/** An owner watch that says "gone" at once. */
const goneAtOnce = () => ({ gone: Promise.resolve(), stop: () => {} });

describe('NodeClient in a cluster: a command sent again', () => {
  const identities = resourceOf('identities');

  it('sends it again with the same request id and deadline once the owner is gone, and answers the second delivery\'s reply', async () => {
    const { bus, sent } = splitBus(async () => commandReply({ id: 'new-id' }, 0));
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: async () => assert.fail('no recovery') });
    assert.deepEqual(await client.command(identities, 'create', 'new-id', { body: {} }), { id: 'new-id' });
    assert.equal(sent.length, 2);
    assert.equal(sent[1].attempt, 1);
    assert.equal(sent[1].rid, sent[0].rid);
    assert.equal(sent[1].deadline, sent[0].deadline);
  });

  it('takes a refusal made after the fence as the answer, without asking the log', async () => {
    const { bus } = splitBus(async () => commandReply(undefined, 0, new ApiError('COULD_NOT_VALIDATE', { field: 'name', value: 'x', reason: 'taken' }).toWire()));
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: async () => assert.fail('no recovery') });
    await assert.rejects(client.command(identities, 'create', 'x', { body: {} }), (err: unknown) => err instanceof ApiError && err.code === 'COULD_NOT_VALIDATE');
  });

  it('takes the first delivery\'s answer when the new owner found that it stored the command', async () => {
    const split = splitBus(async () => {
      setTimeout(() => split.answerFirst(commandReply({ first: true }, 7)), 10);
      throw new ApiError('TIMEOUT', { code: EARLIER_DELIVERY_STORED, message: 'stored before' });
    });
    // The log is asked too, but does not know yet.
    const client = new NodeClient(split.bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: () => new Promise(() => {}) });
    assert.deepEqual(await client.command(identities, 'patch', 'x', { body: {} }), { first: true });
  });

  it('answers from the log when the first delivery, which stored the command, never answers', async () => {
    const split = splitBus(async () => {
      throw new ApiError('TIMEOUT', { code: EARLIER_DELIVERY_STORED, message: 'stored before' });
    });
    const client = new NodeClient(split.bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: async (): Promise<RecoveredOutcome> => ({ ok: true }) });
    assert.deepEqual(await client.command(identities, 'create', 'made-by-first', { body: {} }), { id: 'made-by-first' });
  });

  it('does not take a first delivery\'s reply that stored nothing once the command was sent again', async () => {
    let answerSecond!: (reply: unknown) => void;
    const split = splitBus(() => new Promise((resolve) => (answerSecond = resolve)));
    const client = new NodeClient(split.bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: async () => assert.fail('no recovery') });
    const answer = client.command(identities, 'patch', 'x', { body: {} });
    await new Promise((resolve) => setImmediate(resolve));
    split.answerFirst(commandReply('first, stored nothing', 0));
    await new Promise((resolve) => setImmediate(resolve));
    answerSecond(commandReply('second', 0));
    assert.equal(await answer, 'second');
  });

  it('asks the log when the second delivery fails in a way that says nothing of the first one', async () => {
    const { bus } = splitBus(async () => {
      throw new ApiError('SERVICE_UNAVAILABLE', { code: 'CATCHING_UP', message: 'behind' });
    });
    let asked = 0;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { watchOwner: goneAtOnce, recover: async (): Promise<RecoveredOutcome> => (asked++, { ok: true }) });
    assert.equal(await client.command(identities, 'patch', 'x', { body: {} }), undefined);
    assert.equal(asked, 1);
  });
});
