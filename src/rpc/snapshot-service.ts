// weft.v1.SnapshotService: streams a consistent copy of this node's replica (LevelDB's own files
// as of one instant, so exactly the commands up to its applied sequence) to another node of the
// cluster. Only callers presenting a node certificate of the cluster CA are served; never writes the replica.

import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { APPLIED_SEQ_KEY } from '../store/keys.js';
import { checkpointLevelDb, dbFiles } from '../store/level-checkpoint.js';
import { encodeFiles, SNAPSHOT_FORMAT_VERSION } from '../store/snapshot-content.js';
import type { GrpcServiceBinding } from './grpc-server.js';
import { loadProto } from './proto-path.js';

/** TLS extended key usages a node certificate carries both of (identity and router certificates
 * the CA signs at enrollment carry one only). */
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** Transfers served at once; more are answered RESOURCE_EXHAUSTED (the caller tries another peer). */
const MAX_TRANSFERS = 2;
/** Names of the per-transfer checkpoint directories in workDir. */
const OUTGOING_PREFIX = '.snapshot-outgoing-';

/** Removes checkpoints left in `workDir` by transfers a crash cut short (call before serving). */
export async function removeLeftCheckpoints(workDir: string): Promise<void> {
  for (const name of await readdir(workDir)) {
    if (name.startsWith(OUTGOING_PREFIX)) await rm(join(workDir, name), { recursive: true, force: true });
  }
}

/** A StreamSnapshot response as proto-loader gives it (64-bit integers as decimal strings). */
export interface WireSnapshotResponse {
  header?: {
    appliedSeq: string;
    formatVersion: number;
    nodeId: string;
    /** Format 1 only: the content's size, SHA-256 and key count (no trailer follows). */
    totalBytes?: string;
    sha256?: Buffer;
    keys?: string;
  };
  chunk?: { data: Buffer };
  trailer?: { totalBytes: string; sha256: Buffer; files: number };
  part?: string;
}

export interface SnapshotServiceOptions {
  /** The replica's LevelDB directory. */
  replicaDir: string;
  /** Where a transfer's checkpoint is made (same file system as replicaDir: the node's data directory). */
  workDir: string;
  /** Writes what the replica holds in memory only to disk (called before each checkpoint). */
  flush?: () => Promise<void>;
  nodeId: string;
  /** The cluster CA (PEM) that callers' certificates must be issued by. */
  caPem: string;
  /** Called once per completed transfer (metrics, logs). */
  onTransfer?: (t: { bytes: number; files: number; appliedSeq: number; ms: number }) => void;
  onError?: (err: unknown) => void;
}

interface ServiceConstructor {
  service: grpc.ServiceDefinition;
}

export function snapshotServiceDefinition(): grpc.ServiceDefinition {
  const v1 = (loadProto('weft/v1/snapshot.proto').weft as grpc.GrpcObject).v1 as grpc.GrpcObject;
  return (v1.SnapshotService as unknown as ServiceConstructor).service;
}

/** Why a caller's certificate is refused, or undefined when it is a node certificate of the CA. */
export function nodeCertificateProblem(der: Buffer | undefined, ca: X509Certificate, now = Date.now()): string | undefined {
  if (!der || der.length === 0) return 'a client certificate issued by the cluster CA is required';
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    return 'the client certificate cannot be parsed';
  }
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'the client certificate is not issued by the cluster CA';
  if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) return 'the client certificate is not valid now';
  const usages = cert.keyUsage ?? [];
  if (!usages.includes(SERVER_AUTH) || !usages.includes(CLIENT_AUTH)) return 'the client certificate is not a node certificate';
  return undefined;
}

type Call = grpc.ServerWritableStream<{ maxFormatVersion?: number }, WireSnapshotResponse>;

export class SnapshotService {
  private readonly ca: X509Certificate;
  private transfers = 0;

  constructor(private readonly opts: SnapshotServiceOptions) {
    this.ca = new X509Certificate(opts.caPem);
  }

  binding(): GrpcServiceBinding {
    return { definition: snapshotServiceDefinition(), implementation: { StreamSnapshot: (call: Call) => void this.serve(call) } };
  }

  private async serve(call: Call): Promise<void> {
    const problem = nodeCertificateProblem(call.getAuthContext()?.sslPeerCertificate?.raw, this.ca);
    if (problem) return fail(call, grpc.status.UNAUTHENTICATED, problem);
    if ((call.request.maxFormatVersion ?? 0) < SNAPSHOT_FORMAT_VERSION) {
      return fail(call, grpc.status.FAILED_PRECONDITION, `this node sends snapshot format ${SNAPSHOT_FORMAT_VERSION}`);
    }
    if (this.transfers >= MAX_TRANSFERS) return fail(call, grpc.status.RESOURCE_EXHAUSTED, 'this node is serving other snapshots; try another peer');
    this.transfers++;
    const started = performance.now();
    // A checkpoint of the replica's own files (hard links and a few MiB copied), private to this
    // transfer, sent as they are read; size, file count and hash follow in the trailer.
    const checkpoint = join(this.opts.workDir, `${OUTGOING_PREFIX}${randomBytes(6).toString('hex')}`);
    try {
      await this.opts.flush?.();
      const appliedSeq = Number((await checkpointLevelDb(this.opts.replicaDir, checkpoint, APPLIED_SEQ_KEY)) ?? 0);
      if (call.cancelled) return;
      const files = await dbFiles(checkpoint);
      call.write({ header: { appliedSeq: String(appliedSeq), formatVersion: SNAPSHOT_FORMAT_VERSION, nodeId: this.opts.nodeId } });
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const data of encodeFiles(checkpoint, files)) {
        if (call.cancelled) return;
        hash.update(data);
        bytes += data.length;
        if (!call.write({ chunk: { data } })) await drained(call);
      }
      if (call.cancelled) return;
      call.write({ trailer: { totalBytes: String(bytes), sha256: hash.digest(), files: files.length } });
      call.end();
      this.opts.onTransfer?.({ bytes, files: files.length, appliedSeq, ms: performance.now() - started });
    } catch (err) {
      this.opts.onError?.(err);
      fail(call, grpc.status.INTERNAL, 'the snapshot could not be read');
    } finally {
      this.transfers--;
      await rm(checkpoint, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** Resolves when the call can take more data, or is cancelled (its listeners removed either way). */
function drained(call: Call): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
  });
}

function fail(call: Call, code: grpc.status, details: string): void {
  call.emit('error', { code, details });
}
