// Tests for node-to-node snapshots: a replica's round trip between two in-process gRPC servers
// over mutual TLS, the receiver's integrity checks (hash, size, truncation, a missing trailer,
// applied sequence), format 1 snapshots of earlier versions received too, and refusal of
// callers without a node certificate of the cluster CA.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { ensureNodePki, generateCa, type NodePki } from '../../../src/pki/node-pki.js';
import { GrpcServer } from '../../../src/rpc/grpc-server.js';
import { fetchSnapshot, grpcTarget, receiveSnapshot, SnapshotIntegrityError } from '../../../src/rpc/snapshot-client.js';
import { removeLeftCheckpoints, SnapshotService, snapshotServiceDefinition, type WireSnapshotResponse } from '../../../src/rpc/snapshot-service.js';
import { APPLIED_SEQ_KEY } from '../../../src/store/keys.js';
import type { KvStore } from '../../../src/store/kv.js';
import { LevelKv } from '../../../src/store/level-kv.js';
import { checkpointLevelDb, dbFiles } from '../../../src/store/level-checkpoint.js';
import { encodeFiles, SNAPSHOT_FORMAT_VERSION } from '../../../src/store/snapshot-content.js';
import { makeLeaf } from '../../support/test-pki.js';

async function all(kv: KvStore): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const entry of kv.entries({})) out.push(entry);
  return out;
}

/** The wire messages a server would send for the LevelDB at `dir`, optionally altered. */
async function messagesOf(dir: string, alter: { sha256?: Buffer; totalBytes?: number; appliedSeq?: number; dropLast?: number; noTrailer?: boolean; extraFile?: [string, Buffer]; leaveOut?: RegExp } = {}): Promise<WireSnapshotResponse[]> {
  const checkpoint = `${dir}.checkpoint`;
  const appliedSeq = await checkpointLevelDb(dir, checkpoint, APPLIED_SEQ_KEY);
  const chunks: Buffer[] = [];
  const files = (await dbFiles(checkpoint)).filter((name) => !alter.leaveOut?.test(name));
  for await (const chunk of encodeFiles(checkpoint, files)) chunks.push(chunk);
  await rm(checkpoint, { recursive: true, force: true });
  if (alter.extraFile) {
    const [name, data] = alter.extraFile;
    const head = Buffer.alloc(2 + name.length + 8);
    head.writeUInt16BE(name.length, 0);
    head.write(name, 2);
    head.writeBigUInt64BE(BigInt(data.length), 2 + name.length);
    chunks.unshift(head, data);
  }
  if (alter.dropLast) chunks.push(chunks.pop()!.subarray(0, -alter.dropLast));
  const content = Buffer.concat(chunks);
  const out: WireSnapshotResponse[] = [{
    header: { appliedSeq: String(alter.appliedSeq ?? Number(appliedSeq)), formatVersion: SNAPSHOT_FORMAT_VERSION, nodeId: 'node-a' },
  }];
  // Pieces that do not line up with files: the receiver takes content split anywhere.
  for (let at = 0; at < content.length; at += 100_003) out.push({ chunk: { data: content.subarray(at, at + 100_003) } });
  if (!alter.noTrailer) {
    out.push({
      trailer: {
        totalBytes: String(alter.totalBytes ?? content.length), sha256: alter.sha256 ?? createHash('sha256').update(content).digest(),
        files: files.length + (alter.extraFile ? 1 : 0),
      },
    });
  }
  return out;
}

/** Asserts that the LevelDB at `path` holds exactly what `kv` holds. */
async function assertCopyOf(path: string, kv: KvStore): Promise<void> {
  const copy = new LevelKv({ path });
  await copy.open();
  try {
    assert.deepEqual(await all(copy), await all(kv));
  } finally {
    await copy.close();
  }
}

async function* iterate<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

/** The format 1 messages a node of an earlier version sends for every entry of `kv` (records;
 * size, SHA-256 and key count in the header, no trailer), optionally altered. */
async function recordMessagesOf(kv: KvStore, alter: { sha256?: Buffer; keys?: number; formatVersion?: number } = {}): Promise<WireSnapshotResponse[]> {
  const parts: Buffer[] = [];
  let keys = 0;
  for await (const [key, value] of kv.entries({})) {
    const k = Buffer.from(key, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const lengths = Buffer.alloc(8);
    lengths.writeUInt32BE(k.length, 0);
    lengths.writeUInt32BE(v.length, 4);
    parts.push(lengths.subarray(0, 4), k, lengths.subarray(4), v);
    keys++;
  }
  const content = Buffer.concat(parts);
  const header = {
    appliedSeq: '1234', formatVersion: alter.formatVersion ?? 1, nodeId: 'node-old',
    totalBytes: String(content.length), sha256: alter.sha256 ?? createHash('sha256').update(content).digest(), keys: String(alter.keys ?? keys),
  };
  const out: WireSnapshotResponse[] = [{ header }];
  for (let at = 0; at < content.length; at += 65_537) out.push({ chunk: { data: content.subarray(at, at + 65_537) } });
  return out;
}

/** An open LevelDB replica at `dir` with 30,000 records, applied up to 1234. */
async function sampleKv(dir: string): Promise<LevelKv> {
  const kv = new LevelKv({ path: dir });
  await kv.open();
  const ops = [{ type: 'put' as const, key: APPLIED_SEQ_KEY, value: '1234' }];
  for (let i = 0; i < 30_000; i++) ops.push({ type: 'put', key: `r\u0000identities\u0000id-${String(i).padStart(5, '0')}`, value: JSON.stringify({ name: `identity ${i} ✓`, n: i }) });
  await kv.batch(ops);
  return kv;
}

/** Process warnings seen while this file runs (deprecations are emitted once per process). */
const deprecations: { code?: string }[] = [];
process.on('warning', (w: Error & { code?: string }) => deprecations.push(w));

describe('SnapshotService', () => {
  let root: string;
  let ca: ReturnType<typeof generateCa>;
  let pkiA: NodePki;
  let pkiB: NodePki;
  let source: LevelKv;
  let serverA: GrpcServer;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'weft-snapshot-'));
    ca = generateCa();
    pkiA = await ensureNodePki({ dir: join(root, 'pki-a'), hostnames: ['localhost'], ips: ['127.0.0.1'], ca });
    pkiB = await ensureNodePki({ dir: join(root, 'pki-b'), hostnames: ['localhost'], ips: ['127.0.0.1'], ca });
    source = await sampleKv(join(root, 'a-replica'));
    serverA = await GrpcServer.start({
      listen: '127.0.0.1:0',
      tls: { certPem: pkiA.serverCertPem, keyPem: pkiA.serverKeyPem, caPem: pkiA.caCertPem },
      health: () => ({ serving: true, nodeId: 'node-a', appliedSeq: 1234 }),
      services: [new SnapshotService({ replicaDir: source.path, workDir: root, nodeId: 'node-a', caPem: pkiA.caCertPem }).binding()],
    });
  });

  after(async () => {
    await serverA.close();
    await source.close();
    await rm(root, { recursive: true, force: true });
  });

  it('carries a replica from one node to another and back over mutual TLS', async () => {
    const tlsB = { certPem: pkiB.serverCertPem, keyPem: pkiB.serverKeyPem, caPem: pkiB.caCertPem };
    const got = await fetchSnapshot(serverA.address, tlsB, join(root, 'b-replica'));
    assert.equal(got.appliedSeq, 1234);
    assert.ok(got.files >= 3, 'CURRENT, a MANIFEST and at least one table');
    assert.equal(got.nodeId, 'node-a');
    const copy = new LevelKv({ path: got.path });
    await copy.open();
    const serverB = await GrpcServer.start({
      listen: '127.0.0.1:0',
      tls: tlsB,
      health: () => ({ serving: true, nodeId: 'node-b', appliedSeq: 1234 }),
      services: [new SnapshotService({ replicaDir: copy.path, workDir: root, nodeId: 'node-b', caPem: pkiB.caCertPem }).binding()],
    });
    try {
      const tlsA = { certPem: pkiA.serverCertPem, keyPem: pkiA.serverKeyPem, caPem: pkiA.caCertPem };
      const back = await fetchSnapshot(serverB.address, tlsA, join(root, 'a-again'));
      assert.equal(back.nodeId, 'node-b');
      const again = new LevelKv({ path: back.path });
      await again.open();
      assert.deepEqual(await all(again), await all(source));
      await again.close();
    } finally {
      await serverB.close();
      await copy.close();
    }
  });

  it('receives a format 1 snapshot (records) from a node of an earlier version over gRPC', async () => {
    const messages = await recordMessagesOf(source);
    const old = await GrpcServer.start({
      listen: '127.0.0.1:0',
      tls: { certPem: pkiA.serverCertPem, keyPem: pkiA.serverKeyPem, caPem: pkiA.caCertPem },
      health: () => ({ serving: true, nodeId: 'node-old', appliedSeq: 1234 }),
      services: [{
        definition: snapshotServiceDefinition(),
        implementation: {
          StreamSnapshot: (call: grpc.ServerWritableStream<unknown, WireSnapshotResponse>) => {
            for (const message of messages) call.write(message);
            call.end();
          },
        },
      }],
    });
    try {
      const tlsB = { certPem: pkiB.serverCertPem, keyPem: pkiB.serverKeyPem, caPem: pkiB.caCertPem };
      const got = await fetchSnapshot(old.address, tlsB, join(root, 'from-old'));
      assert.equal(got.appliedSeq, 1234);
      assert.equal(got.nodeId, 'node-old');
      assert.equal(got.keys, 30_001);
      await assertCopyOf(got.path, source);
    } finally {
      await old.close();
    }
  });

  it('leaves no checkpoint behind in its work directory, and removes one a crash left', async () => {
    assert.deepEqual((await readdir(root)).filter((n) => n.startsWith('.snapshot-outgoing-')), [], 'transfers clean up after themselves');
    await mkdir(join(root, '.snapshot-outgoing-left'), { recursive: true });
    await removeLeftCheckpoints(root);
    assert.equal(existsSync(join(root, '.snapshot-outgoing-left')), false);
    assert.ok(existsSync(join(root, 'a-replica')), 'nothing else is touched');
  });

  it('checks the certificate of a peer reached at an IP against that IP, without naming the IP as TLS server name', async () => {
    // Node warns (DEP0123) when an IP is given as server name; every fetch here goes to 127.0.0.1.
    assert.deepEqual(deprecations.filter((w) => w.code === 'DEP0123'), []);
    const noIp = await ensureNodePki({ dir: join(root, 'pki-no-ip'), hostnames: ['localhost'], ips: [], ca });
    const server = await GrpcServer.start({
      listen: '127.0.0.1:0',
      tls: { certPem: noIp.serverCertPem, keyPem: noIp.serverKeyPem, caPem: noIp.caCertPem },
      health: () => ({ serving: true, nodeId: 'node-c', appliedSeq: 1234 }),
      services: [new SnapshotService({ replicaDir: source.path, workDir: root, nodeId: 'node-c', caPem: noIp.caCertPem }).binding()],
    });
    try {
      const tlsB = { certPem: pkiB.serverCertPem, keyPem: pkiB.serverKeyPem, caPem: pkiB.caCertPem };
      const err = await fetchSnapshot(server.address, tlsB, join(root, 'no-ip')).then(() => undefined, (e: grpc.ServiceError) => e);
      assert.equal(err?.code, grpc.status.UNAVAILABLE, 'a certificate without the IP is refused');
      assert.equal(existsSync(join(root, 'no-ip')), false);
    } finally {
      await server.close();
    }
  });

  it('refuses a caller whose certificate another CA issued', async () => {
    const other = await ensureNodePki({ dir: join(root, 'pki-other'), hostnames: ['localhost'], ips: ['127.0.0.1'] });
    const tls = { certPem: other.serverCertPem, keyPem: other.serverKeyPem, caPem: pkiA.caCertPem };
    const err = await fetchSnapshot(serverA.address, tls, join(root, 'refused-1')).then(() => undefined, (e: grpc.ServiceError) => e);
    assert.ok(err, 'the transfer must fail');
    assert.equal(err.code, grpc.status.UNAUTHENTICATED);
    assert.equal(existsSync(join(root, 'refused-1')), false);
  });

  it('refuses a caller with a cluster-CA certificate that is not a node certificate', async () => {
    const identity = makeLeaf({ certPem: ca.certPem, keyPem: ca.keyPem }, 'some-identity');
    const err = await fetchSnapshot(serverA.address, { ...identity, caPem: pkiA.caCertPem }, join(root, 'refused-2')).then(() => undefined, (e: grpc.ServiceError) => e);
    assert.equal(err?.code, grpc.status.UNAUTHENTICATED);
    assert.match(err?.details ?? '', /not a node certificate/);
  });

  it('refuses a caller without a client certificate', async () => {
    const client = new (grpc.makeGenericClientConstructor({}, 'x'))(serverA.address, grpc.credentials.createSsl(Buffer.from(pkiA.caCertPem)));
    const call = client.makeServerStreamRequest('/weft.v1.SnapshotService/StreamSnapshot', () => Buffer.from([8, 1]), (b: Buffer) => b, {});
    const err = await new Promise<grpc.ServiceError>((resolve) => {
      call.on('data', () => undefined);
      call.on('error', resolve);
    });
    client.close();
    assert.equal(err.code, grpc.status.UNAUTHENTICATED);
  });
});

describe('receiveSnapshot', () => {
  let root: string;
  let kv: LevelKv;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'weft-receive-'));
    kv = await sampleKv(join(root, 'source'));
  });

  after(async () => {
    await kv.close();
    await rm(root, { recursive: true, force: true });
  });

  it('writes a verified copy, sent in several chunks', async () => {
    const messages = await messagesOf(kv.path);
    assert.ok(messages.filter((m) => m.chunk).length > 1, 'the sample spans several chunks');
    const got = await receiveSnapshot(iterate(messages), join(root, 'good'));
    assert.equal(got.appliedSeq, 1234);
    await assertCopyOf(got.path, kv);
  });

  it('fails with SnapshotIntegrityError when the SHA-256 does not match, and leaves nothing', async () => {
    const messages = await messagesOf(kv.path, { sha256: createHash('sha256').update('something else').digest() });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'bad-hash')), (err) => err instanceof SnapshotIntegrityError && /SHA-256/.test(err.message));
    assert.equal(existsSync(join(root, 'bad-hash')), false);
    assert.equal(existsSync(join(root, 'bad-hash.partial')), false);
  });

  it('fails when the stream ends before its trailer', async () => {
    const messages = await messagesOf(kv.path, { noTrailer: true });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'no-trailer')), (err) => err instanceof SnapshotIntegrityError && /before its trailer/.test(err.message));
    assert.equal(existsSync(join(root, 'no-trailer')), false);
  });

  it('fails when fewer bytes arrive than the trailer announced', async () => {
    const messages = await messagesOf(kv.path, { totalBytes: 10_000_000 });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'short')), (err) => err instanceof SnapshotIntegrityError && /of the 10000000 bytes/.test(err.message));
  });

  it('refuses a file sent twice', async () => {
    const messages = await messagesOf(kv.path, { extraFile: ['CURRENT', Buffer.from('MANIFEST-999999\n')] });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'twice')), (err) => err instanceof SnapshotIntegrityError && /CURRENT comes twice/.test(err.message));
  });

  it('refuses a file name that is not a LevelDB file, and writes nothing outside the copy', async () => {
    const messages = await messagesOf(kv.path, { extraFile: ['../escaped', Buffer.from('x')] });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'named')), (err) => err instanceof SnapshotIntegrityError && /not a LevelDB file name/.test(err.message));
    assert.equal(existsSync(join(root, 'escaped')), false);
    assert.equal(existsSync(join(root, 'named')), false);
  });

  it('fails when a file the copy needs is missing, though size and hash match', async () => {
    const messages = await messagesOf(kv.path, { leaveOut: /^MANIFEST-/ });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'missing')), (err) => err instanceof SnapshotIntegrityError && /does not open/.test(err.message));
    assert.equal(existsSync(join(root, 'missing')), false);
  });

  it('fails when the content ends inside a file', async () => {
    const messages = await messagesOf(kv.path, { dropLast: 3 });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'cut')), (err) => err instanceof SnapshotIntegrityError && /content ends inside/.test(err.message));
  });

  it('writes a verified copy of a format 1 snapshot (records, no trailer)', async () => {
    const got = await receiveSnapshot(iterate(await recordMessagesOf(kv)), join(root, 'records'));
    assert.equal(got.appliedSeq, 1234);
    assert.equal(got.keys, 30_001);
    await assertCopyOf(got.path, kv);
  });

  it('refuses a format 1 snapshot whose SHA-256 does not match its header, and leaves nothing', async () => {
    const messages = await recordMessagesOf(kv, { sha256: createHash('sha256').update('something else').digest() });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'records-hash')), (err) => err instanceof SnapshotIntegrityError && /SHA-256/.test(err.message));
    assert.equal(existsSync(join(root, 'records-hash')), false);
    assert.equal(existsSync(join(root, 'records-hash.partial')), false);
  });

  it('refuses a format 1 snapshot with another key count than its header', async () => {
    const messages = await recordMessagesOf(kv, { keys: 5 });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'records-keys')), (err) => err instanceof SnapshotIntegrityError && /header announced 5/.test(err.message));
  });

  it('refuses a format it does not read', async () => {
    const messages = await recordMessagesOf(kv, { formatVersion: 3 });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'format-3')), (err) => err instanceof SnapshotIntegrityError && /format 3/.test(err.message));
  });

  it('fails when the header names another applied sequence than the content holds', async () => {
    const messages = await messagesOf(kv.path, { appliedSeq: 99 });
    await assert.rejects(receiveSnapshot(iterate(messages), join(root, 'seq')), (err) => err instanceof SnapshotIntegrityError && /applied sequence 1234/.test(err.message));
  });
});

describe('grpcTarget', () => {
  it('takes host:port from a ctrlAddress and replaces a wildcard host', () => {
    assert.equal(grpcTarget('tls:10.0.0.5:1281'), '10.0.0.5:1281');
    assert.equal(grpcTarget('tls:0.0.0.0:1281', 'weft-1.weft'), 'weft-1.weft:1281');
    assert.equal(grpcTarget('tls:[::]:1281', '::1'), '[::1]:1281');
  });
});
