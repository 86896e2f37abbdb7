// The typed bus protocol at the receiving end, over a MemoryBus (messages cross as JSON, as on
// NATS): an op its family does not serve is 501 UNKNOWN_OPERATION, a malformed message 400
// INVALID_MESSAGE naming the field; never a 500. Also the readers of both families.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ActorHost } from '../../../src/actors/actor-host.js';
import { CatalogActor } from '../../../src/actors/catalog-actor.js';
import { kindOf } from '../../../src/domain/registry.js';
import type { EntityWriter } from '../../../src/actors/entity-writer.js';
import { IdentityActor, type IdentityActorDeps } from '../../../src/actors/identity-actor.js';
import { QueryHandler } from '../../../src/query/query-handler.js';
import { SessionKeeper } from '../../../src/actors/session-keeper.js';
import { MemoryBus } from '../../../src/bus/memory-bus.js';
import { entitySubject, querySubject } from '../../../src/bus/subjects.js';
import { ApiError } from '../../../src/errors.js';
import { readMessage } from '../../../src/protocol/v1/handler-table.js';
import { IDENTITY_PROTOCOL } from '../../../src/protocol/v1/identity-commands.js';
import { QUERY_PROTOCOL } from '../../../src/protocol/v1/query-messages.js';
import { memoryStore } from '../../support/memory-store.js';

/** Asserts an ApiError with this code, status and cause field. */
function refusedWith(code: string, status: number, field: string) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.equal(err.status, status);
    assert.equal((err.apiCause as { field?: unknown } | undefined)?.field, field);
    return true;
  };
}

describe('query family over the bus', () => {
  const bus = new MemoryBus();
  const subject = querySubject('node-1');
  let keeper: SessionKeeper;

  before(async () => {
    const { replica, proposer } = await memoryStore();
    keeper = new SessionKeeper(replica, proposer, { timeoutMinutes: 30 });
    const handler = new QueryHandler(replica, keeper);
    await bus.serve(subject, (msg) => handler.handle(msg));
  });
  after(() => bus.close());

  it('answers an unknown op with 501 UNKNOWN_OPERATION naming the op', async () => {
    await assert.rejects(bus.request(subject, { op: 'listEverything' }), (err: unknown) => {
      refusedWith('UNKNOWN_OPERATION', 501, 'op')(err);
      assert.equal(((err as ApiError).apiCause as { value?: unknown }).value, 'listEverything');
      return true;
    });
  });

  it('answers an op inherited from Object.prototype with 501, not a 500', async () => {
    await assert.rejects(bus.request(subject, { op: 'toString' }), refusedWith('UNKNOWN_OPERATION', 501, 'op'));
  });

  it('answers a message without an op with 400 INVALID_MESSAGE', async () => {
    await assert.rejects(bus.request(subject, { kind: 'identities' }), refusedWith('INVALID_MESSAGE', 400, 'op'));
  });

  it('answers a message that is not an object with 400 INVALID_MESSAGE', async () => {
    await assert.rejects(bus.request(subject, 'get'), refusedWith('INVALID_MESSAGE', 400, ''));
  });

  it('answers a get whose id is a number with 400 INVALID_MESSAGE on id', async () => {
    await assert.rejects(bus.request(subject, { op: 'get', kind: 'identities', id: 7 }), refusedWith('INVALID_MESSAGE', 400, 'id'));
  });

  it('answers a resolveSession without a token with 400 INVALID_MESSAGE on token, not revealing values', async () => {
    await assert.rejects(bus.request(subject, { op: 'resolveSession' }), (err: unknown) => {
      refusedWith('INVALID_MESSAGE', 400, 'token')(err);
      assert.equal(((err as ApiError).apiCause as { value?: unknown }).value, 'missing');
      return true;
    });
  });

  it('answers a list whose roleFilter is not a list of strings with 400 INVALID_MESSAGE', async () => {
    const msg = { op: 'list', kind: 'identities', params: { roleFilter: [1] } };
    await assert.rejects(bus.request(subject, msg), refusedWith('INVALID_MESSAGE', 400, 'roleFilter'));
  });

  it('answers a configQuery for an unknown related list with 501', async () => {
    const msg = { op: 'configQuery', query: 'everything', id: 'x' };
    await assert.rejects(bus.request(subject, msg), refusedWith('UNKNOWN_OPERATION', 501, 'op'));
  });

  it('still answers a well-formed query', async () => {
    assert.deepEqual(await bus.request(subject, { op: 'status' }), { appliedSeq: 0 });
  });
});

describe('command families over the bus', () => {
  const bus = new MemoryBus();
  const host = new ActorHost(bus, { mailboxSize: 8 });

  before(async () => {
    // Nothing reaches the dependencies: every message here is refused before it is handled.
    await host.register('identity', (id) => new IdentityActor(id, {} as IdentityActorDeps));
    await host.register('catalog', (kind) => new CatalogActor(kindOf(kind), {} as EntityWriter));
  });
  after(async () => {
    await host.close();
    await bus.close();
  });

  it('answers an unknown identity op with 501 UNKNOWN_OPERATION', async () => {
    const msg = { key: 'i1', id: 'i1', op: 'mfaEnrol' };
    await assert.rejects(bus.request(entitySubject('identity', 'i1'), msg), refusedWith('UNKNOWN_OPERATION', 501, 'op'));
  });

  it('answers a loginPassword without a password with 400 INVALID_MESSAGE on password', async () => {
    const msg = { key: 'i1', id: 'i1', op: 'loginPassword', authenticatorId: 'a1' };
    await assert.rejects(bus.request(entitySubject('identity', 'i1'), msg), refusedWith('INVALID_MESSAGE', 400, 'password'));
  });

  it('answers a deleteSession whose isAdmin is a string with 400 INVALID_MESSAGE on isAdmin', async () => {
    const msg = { key: 'i1', id: 'i1', op: 'deleteSession', sessionId: 's1', isAdmin: 'yes' };
    await assert.rejects(bus.request(entitySubject('identity', 'i1'), msg), refusedWith('INVALID_MESSAGE', 400, 'isAdmin'));
  });

  it('answers a command whose deadline is not a number with 400 INVALID_MESSAGE on deadline', async () => {
    const msg = { key: 'i1', id: 'i1', op: 'enable', deadline: 'soon' };
    await assert.rejects(bus.request(entitySubject('identity', 'i1'), msg), refusedWith('INVALID_MESSAGE', 400, 'deadline'));
  });

  it('answers an unknown catalog op with 501 UNKNOWN_OPERATION', async () => {
    const msg = { key: 'services', id: 's1', op: 'frobnicate' };
    await assert.rejects(bus.request(entitySubject('catalog', 'services'), msg), refusedWith('UNKNOWN_OPERATION', 501, 'op'));
  });
});

describe('message readers', () => {
  it('reads a list query into its typed form, dropping fields the protocol does not name', () => {
    const read = readMessage(QUERY_PROTOCOL, {
      op: 'list', kind: 'services', params: { filter: 'name="a"', limit: '5', roleFilter: ['#x'] }, viewer: { identityId: 'i1' }, extra: true,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(read)), {
      op: 'list', kind: 'services', params: { filter: 'name="a"', limit: '5', roleFilter: ['#x'] }, viewer: { identityId: 'i1' },
    });
  });

  it('reads a loginCert with its envelope and an empty chain when none was sent', () => {
    const read = readMessage(IDENTITY_PROTOCOL, { key: 'i1', id: 'i1', op: 'loginCert', authenticatorId: 'a1', rid: 'r1', deadline: 5 });
    assert.equal(read.op, 'loginCert');
    assert.deepEqual(read.op === 'loginCert' && [read.key, read.rid, read.deadline, read.authenticatorId, read.peerCerts], ['i1', 'r1', 5, 'a1', []]);
  });

  it('reads the requester\'s applied sequence (seen) into the envelope, and refuses one that is not a number', () => {
    const read = readMessage(IDENTITY_PROTOCOL, { key: 'i1', id: 'i1', op: 'enable', rid: 'r1', deadline: 5, seen: 42 });
    assert.equal(read.seen, 42);
    assert.throws(() => readMessage(IDENTITY_PROTOCOL, { key: 'i1', op: 'enable', seen: 'late' }), refusedWith('INVALID_MESSAGE', 400, 'seen'));
  });

  it('reads a streamed list and the cursor ops, and refuses a listNext without a cursor', () => {
    const list = readMessage(QUERY_PROTOCOL, { op: 'related', parent: { kind: 'services', id: 's1' }, kind: 'terminators', stream: true });
    assert.equal(list.op === 'related' && list.stream, true);
    assert.deepEqual(readMessage(QUERY_PROTOCOL, { op: 'listClose', cursor: 'c1' }), { op: 'listClose', cursor: 'c1' });
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'listNext' }), refusedWith('INVALID_MESSAGE', 400, 'cursor'));
    assert.throws(() => readMessage(QUERY_PROTOCOL, { op: 'list', kind: 'services', stream: 'yes' }), refusedWith('INVALID_MESSAGE', 400, 'stream'));
  });

  it('reads a token enrollment and a TOTP token request, and refuses an enrollment without its signer', () => {
    const enroll = readMessage(IDENTITY_PROTOCOL, { key: 'i1', op: 'enrollToken', body: { signerId: 'j1', claims: { sub: 'x' }, csr: 'PEM' } });
    assert.deepEqual(enroll.op === 'enrollToken' && enroll.body, { signerId: 'j1', claims: { sub: 'x' }, csr: 'PEM' });
    const totp = readMessage(IDENTITY_PROTOCOL, { key: 'i1', op: 'mfaTotpToken', code: '123456', apiSessionId: 'a1' });
    assert.deepEqual(totp.op === 'mfaTotpToken' && [totp.code, totp.apiSessionId], ['123456', 'a1']);
    assert.throws(() => readMessage(IDENTITY_PROTOCOL, { key: 'i1', op: 'enrollToken', body: { claims: {} } }), refusedWith('INVALID_MESSAGE', 400, 'signerId'));
  });
});
