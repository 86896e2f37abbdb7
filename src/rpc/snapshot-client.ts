// Receives a peer's replica snapshot (weft.v1.SnapshotService) into a fresh LevelDB directory:
// format 2 (LevelDB files, checked against the trailer's SHA-256, size and file count) or format 1
// from a peer of an earlier version (records, checked against its header), and the applied
// sequence of the header. The directory appears under its final name only when the copy is
// complete and verified; it never touches a replica in use.

import { createHash } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { readAppliedSeq } from '../store/applied-seq.js';
import type { KvOp } from '../store/kv.js';
import { LevelKv } from '../store/level-kv.js';
import { SnapshotContentError, SnapshotFileWriter, SNAPSHOT_FORMAT_VERSION } from '../store/snapshot-content.js';
import { RECORDS_SNAPSHOT_FORMAT, SnapshotRecordDecoder } from '../store/snapshot-records.js';
import type { WireSnapshotResponse } from './snapshot-service.js';
import { snapshotServiceDefinition } from './snapshot-service.js';

/** The transfer failed its integrity check (hash, size, format or applied sequence): the copy
 * was discarded. Another peer may serve a good one. */
export class SnapshotIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotIntegrityError';
  }
}

/** A snapshot received and verified. */
export interface ReceivedSnapshot {
  /** The directory written (a LevelDB database). */
  path: string;
  appliedSeq: number;
  /** LevelDB files received (0 for a format 1 snapshot, which carries keys). */
  files: number;
  /** Keys received (format 1 only). */
  keys?: number;
  bytes: number;
  /** The serving node. */
  nodeId: string;
}

/** The caller's TLS material: its node certificate (issued by the cluster CA) and the CA. */
export interface SnapshotClientTls {
  certPem: string;
  keyPem: string;
  caPem: string;
}

/** Format 1: entries written to LevelDB per batch while receiving. */
const RECORDS_BATCH = 2000;
/** A transfer that goes this long without a message is abandoned (ms). */
const IDLE_MS = 15_000;

/**
 * Writes the snapshot carried by `messages` (a header, chunks, a trailer) into a new LevelDB at
 * `dir` (replaced if it exists). Throws SnapshotIntegrityError when the content does not match
 * its trailer or header; nothing is left at `dir` unless the whole copy verified.
 */
export async function receiveSnapshot(messages: AsyncIterable<WireSnapshotResponse>, dir: string): Promise<ReceivedSnapshot> {
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
  await mkdir(partial, { recursive: true, mode: 0o700 });
  const writer = new SnapshotFileWriter(partial);
  try {
    const { header, rest } = await splitHeader(messages);
    // A peer of an earlier version sends format 1 (records); this version sends format 2 (files).
    const received = header.formatVersion === RECORDS_SNAPSHOT_FORMAT ? await writeRecords(header, rest, partial) : await writeContent(header, rest, writer);
    const held = await appliedSeqOfCopy(partial);
    if (held !== received.appliedSeq) throw new SnapshotIntegrityError(`the snapshot holds applied sequence ${held}, its header ${received.appliedSeq}`);
    await rename(partial, dir);
    return { ...received, path: dir };
  } catch (err) {
    await writer.abort();
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
}

type Header = NonNullable<WireSnapshotResponse['header']>;

/** The stream's header (of a format this version reads) and the messages after it. */
async function splitHeader(messages: AsyncIterable<WireSnapshotResponse>): Promise<{ header: Header; rest: AsyncIterable<WireSnapshotResponse> }> {
  const it = messages[Symbol.asyncIterator]();
  const first = await it.next();
  const refuse = async (message: string) => {
    await it.return?.();
    return new SnapshotIntegrityError(message);
  };
  if (first.done) throw await refuse('the snapshot stream ended before its header');
  const header = first.value.header;
  if (!header) throw await refuse('the snapshot stream does not start with a header');
  if (header.formatVersion !== SNAPSHOT_FORMAT_VERSION && header.formatVersion !== RECORDS_SNAPSHOT_FORMAT) {
    throw await refuse(`snapshot format ${header.formatVersion} is neither ${SNAPSHOT_FORMAT_VERSION} nor ${RECORDS_SNAPSHOT_FORMAT}`);
  }
  return { header, rest: { [Symbol.asyncIterator]: () => it } };
}

/** Format 2: the files of a LevelDB checkpoint, checked against the trailer. */
async function writeContent(header: Header, messages: AsyncIterable<WireSnapshotResponse>, writer: SnapshotFileWriter): Promise<Omit<ReceivedSnapshot, 'path'>> {
  let trailer: WireSnapshotResponse['trailer'];
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const message of messages) {
    if (trailer) throw new SnapshotIntegrityError('a message after the snapshot\'s trailer');
    if (message.trailer) {
      trailer = message.trailer;
      continue;
    }
    const data = message.chunk?.data;
    if (!data) throw new SnapshotIntegrityError('a second header in the snapshot stream');
    hash.update(data);
    bytes += data.length;
    await refuseBadContent(() => writer.push(data));
  }
  if (!trailer) throw new SnapshotIntegrityError(`the snapshot stream ended after ${bytes} bytes, before its trailer`);
  if (bytes !== Number(trailer.totalBytes)) throw new SnapshotIntegrityError(`received ${bytes} of the ${trailer.totalBytes} bytes announced`);
  if (!hash.digest().equals(Buffer.from(trailer.sha256))) throw new SnapshotIntegrityError('the SHA-256 of the received snapshot does not match its trailer');
  await refuseBadContent(() => writer.end());
  if (writer.files.length !== trailer.files) throw new SnapshotIntegrityError(`received ${writer.files.length} files, the trailer announced ${trailer.files}`);
  await writer.sync();
  return { appliedSeq: Number(header.appliedSeq), files: writer.files.length, bytes, nodeId: header.nodeId };
}

/** Format 1: every key of the peer's replica, written into a new LevelDB at `dir` in batches and
 * checked against the size, SHA-256 and key count of the header. */
async function writeRecords(header: Header, messages: AsyncIterable<WireSnapshotResponse>, dir: string): Promise<Omit<ReceivedSnapshot, 'path'>> {
  const announced = { bytes: Number(header.totalBytes ?? 0), keys: Number(header.keys ?? 0) };
  const target = new LevelKv({ path: dir });
  await target.open();
  try {
    const hash = createHash('sha256');
    const decoder = new SnapshotRecordDecoder();
    let bytes = 0;
    let keys = 0;
    let ops: KvOp[] = [];
    for await (const message of messages) {
      const data = message.chunk?.data;
      if (!data) throw new SnapshotIntegrityError(message.trailer ? 'a trailer in a format 1 snapshot' : 'a second header in the snapshot stream');
      hash.update(data);
      bytes += data.length;
      if (bytes > announced.bytes) throw new SnapshotIntegrityError(`the snapshot is longer than the ${announced.bytes} bytes announced`);
      let entries: [string, string][] = [];
      await refuseBadContent(async () => void (entries = decoder.push(data)));
      for (const [key, value] of entries) ops.push({ type: 'put', key, value });
      keys += entries.length;
      if (ops.length >= RECORDS_BATCH) {
        await target.batch(ops);
        ops = [];
      }
    }
    if (bytes !== announced.bytes) throw new SnapshotIntegrityError(`received ${bytes} of the ${announced.bytes} bytes announced`);
    if (!hash.digest().equals(Buffer.from(header.sha256 ?? []))) throw new SnapshotIntegrityError('the SHA-256 of the received snapshot does not match its header');
    await refuseBadContent(async () => decoder.end());
    if (keys !== announced.keys) throw new SnapshotIntegrityError(`received ${keys} keys, the header announced ${announced.keys}`);
    if (ops.length > 0) await target.batch(ops, { sync: true });
    return { appliedSeq: Number(header.appliedSeq), files: 0, keys, bytes, nodeId: header.nodeId };
  } finally {
    await target.close();
  }
}

async function refuseBadContent(step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    throw err instanceof SnapshotContentError ? new SnapshotIntegrityError(err.message) : err;
  }
}

/** The applied sequence recorded in a received copy (0 when there is none). Opening
 * it checks it: a copy missing a file it needs fails here. */
async function appliedSeqOfCopy(dir: string): Promise<number> {
  try {
    return await readAppliedSeq(dir);
  } catch (err) {
    throw new SnapshotIntegrityError(`the received copy does not open as a database: ${(err as Error).message}`);
  }
}

/** `tls:host:port` (a member's ctrlAddress) or host:port, as a gRPC target. A wildcard listen
 * host (0.0.0.0, ::) is replaced by `fallbackHost` (the host of the member's API URL). */
export function grpcTarget(ctrlAddress: string, fallbackHost?: string): string {
  const address = ctrlAddress.replace(/^tls:/, '');
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = address.slice(colon + 1);
  const usable = (host === '0.0.0.0' || host === '::' || host === '') && fallbackHost ? fallbackHost : host;
  return `${usable.includes(':') ? `[${usable}]` : usable}:${port}`;
}

/** The host of a `host:port` target when it is an IP address ([::1]:port included). */
function targetIp(target: string): string | undefined {
  const host = target.slice(0, target.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return isIP(host) ? host : undefined;
}

/** Streams a snapshot from the node at `target` (host:port) into `dir` over mutual TLS. */
export async function fetchSnapshot(target: string, tls: SnapshotClientTls, dir: string): Promise<ReceivedSnapshot> {
  const Client = grpc.makeGenericClientConstructor(snapshotServiceDefinition(), 'SnapshotService');
  // A peer reached at an IP address: its certificate is checked against that IP as ever, but the
  // TLS server name (SNI) is a host name, since Node warns on an IP there (DEP0123, a line of
  // plain text among the JSON log lines).
  const ip = targetIp(target);
  const creds = grpc.credentials.createSsl(Buffer.from(tls.caPem), Buffer.from(tls.keyPem), Buffer.from(tls.certPem),
    ip ? { checkServerIdentity: (_name, cert) => checkServerIdentity(ip, cert) } : {});
  const client = new Client(target, creds, {
    'grpc.max_receive_message_length': 256 * 1024 * 1024,
    ...(ip ? { 'grpc.ssl_target_name_override': 'localhost' } : {}),
  });
  const call = (client as unknown as { StreamSnapshot(req: unknown): grpc.ClientReadableStream<WireSnapshotResponse> })
    .StreamSnapshot({ maxFormatVersion: SNAPSHOT_FORMAT_VERSION });
  let idle: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => call.cancel(), IDLE_MS);
  };
  // The call's status arrives after its last message: a refusal ends the stream without
  // messages and only then reports why.
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  let failure: grpc.ServiceError | undefined;
  call.on('error', (err: grpc.ServiceError) => (failure = err));
  async function* watched(): AsyncIterable<WireSnapshotResponse> {
    arm();
    for await (const message of call as AsyncIterable<WireSnapshotResponse>) {
      arm();
      yield message;
    }
    const end = await status;
    if (end.code !== grpc.status.OK) throw failure ?? Object.assign(new Error(`${end.code} ${end.details}`), { code: end.code, details: end.details });
  }
  try {
    return await receiveSnapshot(watched(), dir);
  } catch (err) {
    call.cancel();
    throw err;
  } finally {
    clearTimeout(idle);
    client.close();
  }
}
