// Receives a peer's replica snapshot (weft.v1.SnapshotService) into a fresh LevelDB directory,
// checking the SHA-256, size and applied sequence the header announced. The directory appears
// under its final name only when the copy is complete and verified; it never touches a replica in use.

import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import { APPLIED_SEQ_KEY } from '../store/keys.js';
import type { KvOp } from '../store/kv.js';
import { LevelKv } from '../store/level-kv.js';
import { SnapshotDecoder, SNAPSHOT_FORMAT_VERSION } from '../store/snapshot-content.js';
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
  keys: number;
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

/** Entries written to LevelDB per batch while receiving. */
const BATCH = 2000;
/** A transfer that goes this long without a message is abandoned (ms). */
const IDLE_MS = 15_000;

/**
 * Writes the snapshot carried by `messages` (a header, then chunks) into a new LevelDB at `dir`
 * (replaced if it exists). Throws SnapshotIntegrityError when the content does not match its
 * header; nothing is left at `dir` unless the whole copy verified.
 */
export async function receiveSnapshot(messages: AsyncIterable<WireSnapshotResponse>, dir: string): Promise<ReceivedSnapshot> {
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
  const target = new LevelKv({ path: partial });
  await target.open();
  try {
    const received = await writeContent(messages, target);
    await target.close();
    await rename(partial, dir);
    return { ...received, path: dir };
  } catch (err) {
    await target.close().catch(() => undefined);
    await rm(partial, { recursive: true, force: true });
    throw err;
  }
}

async function writeContent(messages: AsyncIterable<WireSnapshotResponse>, target: LevelKv): Promise<Omit<ReceivedSnapshot, 'path'>> {
  let header: WireSnapshotResponse['header'];
  const hash = createHash('sha256');
  const decoder = new SnapshotDecoder();
  let bytes = 0;
  let keys = 0;
  let appliedSeq: number | undefined;
  let ops: KvOp[] = [];
  for await (const message of messages) {
    if (!header) {
      header = message.header;
      if (!header) throw new SnapshotIntegrityError('the snapshot stream does not start with a header');
      if (header.formatVersion !== SNAPSHOT_FORMAT_VERSION) throw new SnapshotIntegrityError(`snapshot format ${header.formatVersion} is not ${SNAPSHOT_FORMAT_VERSION}`);
      continue;
    }
    const data = message.chunk?.data;
    if (!data) throw new SnapshotIntegrityError('a second header in the snapshot stream');
    hash.update(data);
    bytes += data.length;
    if (bytes > Number(header.totalBytes)) throw new SnapshotIntegrityError(`the snapshot is longer than the ${header.totalBytes} bytes announced`);
    for (const [key, value] of decodeOrRefuse(decoder, data)) {
      if (key === APPLIED_SEQ_KEY) appliedSeq = Number(value);
      ops.push({ type: 'put', key, value });
      keys++;
    }
    if (ops.length >= BATCH) {
      await target.batch(ops);
      ops = [];
    }
  }
  if (!header) throw new SnapshotIntegrityError('the snapshot stream ended before its header');
  if (bytes !== Number(header.totalBytes)) throw new SnapshotIntegrityError(`received ${bytes} of the ${header.totalBytes} bytes announced`);
  if (!hash.digest().equals(Buffer.from(header.sha256))) throw new SnapshotIntegrityError('the SHA-256 of the received snapshot does not match its header');
  try {
    decoder.end();
  } catch (err) {
    throw new SnapshotIntegrityError((err as Error).message);
  }
  const announced = Number(header.appliedSeq);
  if ((appliedSeq ?? 0) !== announced) throw new SnapshotIntegrityError(`the snapshot holds applied sequence ${appliedSeq ?? 0}, its header ${announced}`);
  if (keys !== Number(header.keys)) throw new SnapshotIntegrityError(`received ${keys} keys, the header announced ${header.keys}`);
  await target.batch(ops.length > 0 ? ops : [{ type: 'put', key: APPLIED_SEQ_KEY, value: String(announced) }], { sync: true });
  return { appliedSeq: announced, keys, bytes, nodeId: header.nodeId };
}

function decodeOrRefuse(decoder: SnapshotDecoder, data: Buffer): [string, string][] {
  try {
    return decoder.push(data);
  } catch (err) {
    throw new SnapshotIntegrityError((err as Error).message);
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

/** Streams a snapshot from the node at `target` (host:port) into `dir` over mutual TLS. */
export async function fetchSnapshot(target: string, tls: SnapshotClientTls, dir: string): Promise<ReceivedSnapshot> {
  const Client = grpc.makeGenericClientConstructor(snapshotServiceDefinition(), 'SnapshotService');
  const creds = grpc.credentials.createSsl(Buffer.from(tls.caPem), Buffer.from(tls.keyPem), Buffer.from(tls.certPem));
  const client = new Client(target, creds, { 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
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
