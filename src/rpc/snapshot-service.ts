// weft.v1.SnapshotService: streams a consistent copy of this node's replica (one point-in-time
// view, so exactly the commands up to its applied sequence) to another node of the cluster.
// Only callers presenting a node certificate of the cluster CA are served; never writes.

import { createHash, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { openSnapshot, type KvSnapshot } from '../store/kv-snapshot.js';
import type { KvStore } from '../store/kv.js';
import { APPLIED_SEQ_KEY } from '../store/keys.js';
import { encodeSnapshot, SNAPSHOT_FORMAT_VERSION } from '../store/snapshot-content.js';
import type { GrpcServiceBinding } from './grpc-server.js';
import { loadProto } from './proto-path.js';

/** TLS extended key usages a node certificate carries both of (identity and router certificates
 * the CA signs at enrollment carry one only). */
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** Transfers served at once; more are answered RESOURCE_EXHAUSTED (the caller tries another peer). */
const MAX_TRANSFERS = 2;

/** A StreamSnapshot response as proto-loader gives it (64-bit integers as decimal strings). */
export interface WireSnapshotResponse {
  header?: { appliedSeq: string; formatVersion: number; totalBytes: string; sha256: Buffer; keys: string; nodeId: string };
  chunk?: { data: Buffer };
  part?: string;
}

export interface SnapshotServiceOptions {
  /** The replica's store. */
  kv: KvStore;
  nodeId: string;
  /** The cluster CA (PEM) that callers' certificates must be issued by. */
  caPem: string;
  /** Called once per completed transfer (metrics, logs). */
  onTransfer?: (t: { bytes: number; keys: number; appliedSeq: number; ms: number }) => void;
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
    const view = openSnapshot(this.opts.kv);
    try {
      // Two passes over one view: the header carries the content's size and hash up front,
      // and neither pass holds more than one chunk.
      const digest = await measure(view);
      if (call.cancelled) return;
      call.write({
        header: {
          appliedSeq: String(digest.appliedSeq), formatVersion: SNAPSHOT_FORMAT_VERSION, totalBytes: String(digest.bytes),
          sha256: digest.sha256, keys: String(digest.keys), nodeId: this.opts.nodeId,
        },
      });
      for await (const data of encodeSnapshot(view)) {
        if (call.cancelled) return;
        if (!call.write({ chunk: { data } })) await Promise.race([once(call, 'drain'), once(call, 'cancelled')]);
      }
      call.end();
      this.opts.onTransfer?.({ bytes: digest.bytes, keys: digest.keys, appliedSeq: digest.appliedSeq, ms: performance.now() - started });
    } catch (err) {
      this.opts.onError?.(err);
      fail(call, grpc.status.INTERNAL, 'the snapshot could not be read');
    } finally {
      this.transfers--;
      await view.close().catch(() => undefined);
    }
  }
}

async function measure(view: KvSnapshot): Promise<{ bytes: number; keys: number; appliedSeq: number; sha256: Buffer }> {
  const hash = createHash('sha256');
  const counted = { keys: 0 };
  let bytes = 0;
  for await (const chunk of encodeSnapshot(view, counted)) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { bytes, keys: counted.keys, appliedSeq: Number((await view.get(APPLIED_SEQ_KEY)) ?? 0), sha256: hash.digest() };
}

function fail(call: Call, code: grpc.status, details: string): void {
  call.emit('error', { code, details });
}
