// Lost answers in a cluster: expired entries are refused at apply, a requester finds the outcome
// of its command by request id, and NodeClient answers from that outcome.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { Bus } from '../../../src/bus/bus.js';
import { CommandOutcomes } from '../../../src/cluster/command-outcomes.js';
import { ReadBarrier } from '../../../src/cluster/read-barrier.js';
import type { Command } from '../../../src/domain/commands.js';
import { resourceOf } from '../../../src/domain/registry.js';
import { ApiError } from '../../../src/errors.js';
import { NodeClient, type RecoveredOutcome } from '../../../src/gateway/node-client.js';
import { withArrival } from '../../../src/gateway/request-arrival.js';
import { MemoryKv } from '../../../src/store/memory-kv.js';
import { Replica } from '../../../src/store/replica.js';
import { record } from '../../support/memory-store.js';
import { DEFAULT_CLUSTER_SCOPE } from '../../../src/bus/subjects.js';

async function replica(): Promise<Replica> {
  const kv = new MemoryKv();
  await kv.open();
  const r = new Replica(kv);
  await r.open();
  return r;
}

function identityCommand(id: string, name: string, extra: Partial<Command> = {}): Command {
  return { at: '2026-01-01T00:00:00.000Z', origin: 'n1', ops: [{ op: 'create', kind: 'identity-types', record: record(id, { name }) }], ...extra };
}

describe('command expiry at apply', () => {
  it('refuses an entry the log stored after its expiry, on every replica alike', async () => {
    const a = await replica();
    const b = await replica();
    const expires = '2026-01-01T00:00:15.000Z';
    const late = { seq: 1, command: identityCommand('t1', 'late', { expires }), timeMs: Date.parse(expires) + 1 };
    const inTime = { seq: 2, command: identityCommand('t2', 'in-time', { expires }), timeMs: Date.parse(expires) };
    for (const r of [a, b]) await r.applyBatch([late, inTime]);
    for (const r of [a, b]) {
      const first = await r.waitFor(1);
      assert.equal(first.ok, false);
      assert.equal(!first.ok && (first.error.cause as { code?: string }).code, 'EXPIRED');
      assert.deepEqual(await r.waitFor(2), { ok: true });
      assert.equal(await r.get('identity-types', 't1'), undefined);
      assert.ok(await r.get('identity-types', 't2'));
    }
  });
});

describe('CommandOutcomes', () => {
  it('finds a stored command by its request id at once', async () => {
    const r = await replica();
    const outcomes = new CommandOutcomes(r, new ReadBarrier({ lastSeq: async () => r.appliedSeq, waitApplied: async () => undefined }));
    await r.applyBatch([{ seq: 1, command: identityCommand('t1', 'one', { rid: 'rid-1' }) }]);
    assert.deepEqual(await outcomes.outcome('rid-1', Date.now() + 60_000), { ok: true });
  });

  it('answers none once nothing can be stored any more and the log was read', async () => {
    const r = await replica();
    const outcomes = new CommandOutcomes(r, new ReadBarrier({ lastSeq: async () => 0, waitApplied: async () => undefined }));
    assert.equal(await outcomes.outcome('rid-missing', Date.now() - 1), 'none');
  });

  it('gives a refused command its refusal', async () => {
    const r = await replica();
    const outcomes = new CommandOutcomes(r, new ReadBarrier({ lastSeq: async () => 0, waitApplied: async () => undefined }));
    await r.applyBatch([{ seq: 1, command: identityCommand('t1', 'one') }, { seq: 2, command: identityCommand('t1', 'again', { rid: 'rid-2' }) }]);
    const outcome = await outcomes.outcome('rid-2', Date.now() - 1);
    assert.ok(typeof outcome === 'object' && !outcome.ok);
  });
});

/** A bus whose requests never get their answer (a lost reply). */
function losingBus(): Bus & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    request: async (_subject: string, msg: unknown) => {
      sent.push(msg as Record<string, unknown>);
      throw new ApiError('TIMEOUT');
    },
  } as unknown as Bus & { sent: Record<string, unknown>[] };
}

describe('NodeClient in a cluster: a lost answer', () => {
  const identities = resourceOf('identities');

  it('answers a stored create with its id, found by the request id it sent', async () => {
    const bus = losingBus();
    let asked: string | undefined;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async (rid): Promise<RecoveredOutcome> => ((asked = rid), { ok: true }) });
    assert.deepEqual(await client.command(identities, 'create', 'new-id', { body: {} }), { id: 'new-id' });
    assert.equal(asked, bus.sent[0]!.rid);
    assert.equal(typeof bus.sent[0]!.deadline, 'number');
  });

  it('says a write that was not stored may be sent again (503 NOT_STORED)', async () => {
    const client = new NodeClient(losingBus(), 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none' });
    await assert.rejects(client.command(identities, 'patch', 'x', { body: {} }), (err: unknown) =>
      err instanceof ApiError && err.status === 503 && (err.apiCause as { code?: string }).code === 'NOT_STORED');
  });

  it('passes on the refusal of a refused write', async () => {
    const client = new NodeClient(losingBus(), 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => ({ ok: false, error: new ApiError('NOT_FOUND').toWire() }) });
    await assert.rejects(client.command(identities, 'delete', 'x'), (err: unknown) => err instanceof ApiError && err.code === 'NOT_FOUND');
  });

  it('never reports a stored write of another kind as failed: it says the answer was lost', async () => {
    const client = new NodeClient(losingBus(), 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => ({ ok: true }) });
    await assert.rejects(client.command(identities, 'resetMfa', 'x'), (err: unknown) =>
      err instanceof ApiError && (err.apiCause as { code?: string }).code === 'STORED_ANSWER_LOST');
  });
});

describe('NodeClient in a cluster: an outcome the log has not told yet', () => {
  const identities = resourceOf('identities');
  const isOutcomeUnknown = (err: unknown) =>
    err instanceof ApiError && err.status === 504 && (err.apiCause as { code?: string }).code === 'OUTCOME_UNKNOWN';

  it('answers 504 OUTCOME_UNKNOWN, not a failure, while recovery of a lost answer still waits for the log', async () => {
    const client = new NodeClient(losingBus(), 'n1', DEFAULT_CLUSTER_SCOPE, { recover: () => new Promise<RecoveredOutcome>(() => {}), outcomeWaitMs: 20 });
    await assert.rejects(client.command(identities, 'create', 'new-id', { body: {} }), isOutcomeUnknown);
  });

  it('answers 504 OUTCOME_UNKNOWN while the owner has not answered and the log cannot be read', async () => {
    const bus = { request: () => new Promise(() => {}) } as unknown as Bus;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none', logReadable: async () => false, outcomeWaitMs: 20 });
    await assert.rejects(client.command(identities, 'patch', 'x', { body: {} }), isOutcomeUnknown);
  });

  it('answers 504 OUTCOME_UNKNOWN when this node lost NATS since sending, though the log can be read', async () => {
    let losses = 0;
    const bus = { request: () => ((losses = 1), new Promise(() => {})) } as unknown as Bus;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none', logReadable: async () => true, connectionLosses: () => losses, outcomeWaitMs: 20 });
    await assert.rejects(client.command(identities, 'patch', 'x', { body: {} }), isOutcomeUnknown);
  });

  it('counts the wait from when the request reached the node: a wait before the command does not push the answer later', async () => {
    const bus = { request: () => new Promise(() => {}) } as unknown as Bus;
    // A minute: counted from the command's start, the test would time out waiting for it.
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none', logReadable: async () => false, outcomeWaitMs: 60_000 });
    const arrivedAMinuteAgo = Date.now() - 60_000;
    await assert.rejects(withArrival(arrivedAMinuteAgo, () => client.command(identities, 'create', 'late-id', { body: {} })), isOutcomeUnknown);
  });

  it('gives a command that began late less time to be taken up: refused within the bound from its arrival', async () => {
    const sent: Array<{ proposeBy: number; proposeWithinMs: number }> = [];
    const bus = { request: async (_subject: string, msg: { proposeBy: number; proposeWithinMs: number }) => (sent.push(msg), { answer: { id: 'x' }, seq: 0 }) } as unknown as Bus;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, { recover: async () => 'none' });
    await client.command(identities, 'create', 'x', { body: {} });
    assert.equal(sent[0].proposeWithinMs, 2_000, 'a command that begins as its request arrives gets the full 2 s');
    const arrived = Date.now() - 3_000;
    await withArrival(arrived, () => client.command(identities, 'create', 'y', { body: {} }));
    assert.ok(sent[1].proposeWithinMs <= 1_500 && sent[1].proposeBy <= arrived + 4_500, `taken up by 4.5 s after arrival: ${JSON.stringify(sent[1])}`);
    await withArrival(Date.now() - 4_400, () => client.command(identities, 'create', 'z', { body: {} }));
    assert.equal(sent[2].proposeWithinMs, 500, 'never less than 0.5 s');
  });

  it('answers 504 OUTCOME_UNKNOWN at once when the answer is lost after the first check, not at the next one', async () => {
    let lose: (err: unknown) => void = () => {};
    const bus = { request: () => new Promise((_, reject) => (lose = reject)) } as unknown as Bus;
    let checks = 0;
    // The next check a minute later: waiting for it, the test would time out.
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, {
      recover: () => new Promise<RecoveredOutcome>(() => {}),
      logReadable: async () => {
        if (++checks === 2) lose(new ApiError('TIMEOUT'));
        return true;
      },
      outcomeWaitMs: 20,
      recheckMs: 60_000,
    });
    await assert.rejects(client.command(identities, 'create', 'lost-id', { body: {} }), isOutcomeUnknown);
    assert.equal(checks, 2, 'the answer was lost after the first check');
  });

  it('waits for a slow owner while the log can be read, and gives its answer', async () => {
    let answer: (reply: unknown) => void = () => {};
    const bus = { request: () => new Promise((resolve) => (answer = resolve)) } as unknown as Bus;
    let checks = 0;
    const client = new NodeClient(bus, 'n1', DEFAULT_CLUSTER_SCOPE, {
      recover: async () => 'none',
      logReadable: async () => {
        if (++checks === 2) answer({ answer: { id: 'slow-id' }, seq: 0 });
        return true;
      },
      outcomeWaitMs: 20,
    });
    assert.deepEqual(await client.command(identities, 'create', 'slow-id', { body: {} }), { id: 'slow-id' });
    assert.ok(checks >= 2, 'the log was checked while the owner had not answered');
  });
});
