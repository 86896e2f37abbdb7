// weft.v1.PostureService: one stream per edge router, authenticated by its client certificate.
// Each PostureEvent goes to the identity's actor (as REST posture responses do) and is acked;
// revocations of identities the router reported are pushed. Online while a stream is open.

import * as grpc from '@grpc/grpc-js';
import type { RouterConnection, RouterPresence } from './router-presence.js';
import type { PostureSubmitResult } from '../protocol/v1/identity-commands.js';
import { loadProto } from './proto-path.js';
import type { GrpcServiceBinding } from './grpc-server.js';
import { RouterAuthError, type RouterAuthenticator, type RouterPeer } from './router-auth.js';
import { fromWireResponse, type WireAccessChange, type WirePostureEvent, type WirePostureUpdate } from './posture-wire.js';

export type { PostureSubmitResult };

/** A revocation as the identity actors announce it. */
export interface Revocation {
  identityId: string;
  reason: string;
  sessions: { id: string; serviceId: string; apiSessionId: string; type: string }[];
}

export interface PostureServiceOptions {
  auth: RouterAuthenticator;
  presence: RouterPresence;
  /** Sends one event's responses to the identity's actor. */
  submit(event: { identityId: string; apiSessionId: string; responses: Record<string, unknown>[] }): Promise<PostureSubmitResult>;
  /** Events handled at once per stream before reading pauses. */
  maxInFlight?: number;
  onError?: (err: unknown) => void;
}

type Call = grpc.ServerDuplexStream<WirePostureEvent, WirePostureUpdate>;

interface OpenStream {
  call: Call;
  peer: RouterPeer;
  connection: RouterConnection;
  closed: boolean;
}

interface ServiceConstructor {
  service: grpc.ServiceDefinition;
}

export function postureServiceDefinition(): grpc.ServiceDefinition {
  const v1 = (loadProto('weft/v1/posture.proto').weft as grpc.GrpcObject).v1 as grpc.GrpcObject;
  return (v1.PostureService as unknown as ServiceConstructor).service;
}

const REASONS: Record<string, WireAccessChange['reason']> = { posture: 'REASON_POSTURE', timer: 'REASON_TIMER', policy: 'REASON_POLICY' };

export class PostureStreamService {
  private readonly streams = new Set<OpenStream>();

  constructor(private readonly opts: PostureServiceOptions) {}

  binding(): GrpcServiceBinding {
    return { definition: postureServiceDefinition(), implementation: { StreamPostureEvents: (call: Call) => this.accept(call) } };
  }

  /** Open streams (for tests and metrics). */
  openStreams(): number {
    return this.streams.size;
  }

  /** Pushes a revocation to every stream whose router reported the identity. */
  notify(revocation: Revocation): void {
    const update: WirePostureUpdate = {
      accessChange: {
        identityId: revocation.identityId,
        reason: REASONS[revocation.reason] ?? 'REASON_UNSPECIFIED',
        revoked: revocation.sessions.map((s) => ({ sessionId: s.id, serviceId: s.serviceId, apiSessionId: s.apiSessionId, type: s.type })),
      },
    };
    for (const stream of this.streams) {
      if (!stream.closed && stream.connection.identities().has(revocation.identityId)) stream.call.write(update);
    }
  }

  /** Closes the streams of these routers whose certificate no longer matches their record. */
  async recheck(routerIds: Iterable<string>): Promise<void> {
    const ids = new Set(routerIds);
    for (const stream of [...this.streams]) {
      if (!ids.has(stream.peer.routerId) || stream.closed) continue;
      if (!(await this.opts.auth.stillValid(stream.peer))) {
        this.fail(stream.call, grpc.status.UNAUTHENTICATED, 'the router certificate is no longer valid: enroll the router again');
        this.release(stream);
      }
    }
  }

  /** Ends every stream (node shutdown). */
  close(): void {
    for (const stream of [...this.streams]) {
      this.fail(stream.call, grpc.status.UNAVAILABLE, 'the controller is shutting down');
      this.release(stream);
    }
  }

  private accept(call: Call): void {
    const der = call.getAuthContext()?.sslPeerCertificate?.raw;
    this.opts.auth.authenticate(der).then(
      (peer) => this.open(call, peer),
      (err) => {
        if (!(err instanceof RouterAuthError)) this.opts.onError?.(err);
        this.fail(call, grpc.status.UNAUTHENTICATED, err instanceof Error ? err.message : 'authentication failed');
      },
    );
  }

  private open(call: Call, peer: RouterPeer): void {
    if (call.cancelled) return;
    const stream: OpenStream = { call, peer, connection: this.opts.presence.open(peer.routerId), closed: false };
    this.streams.add(stream);
    const max = this.opts.maxInFlight ?? 256;
    let inFlight = 0;
    let ended = false;
    const finish = () => {
      if (ended && inFlight === 0 && !stream.closed) {
        this.release(stream);
        call.end();
      }
    };
    call.on('data', (event: WirePostureEvent) => {
      inFlight++;
      if (inFlight >= max) call.pause();
      this.handleEvent(stream, event).finally(() => {
        inFlight--;
        if (inFlight < max) call.resume();
        finish();
      });
    });
    call.on('end', () => {
      ended = true;
      finish();
    });
    call.on('cancelled', () => this.release(stream));
    call.on('error', () => this.release(stream));
    call.on('close', () => this.release(stream));
  }

  private async handleEvent(stream: OpenStream, event: WirePostureEvent): Promise<void> {
    const identityId = event.identityId ?? '';
    const ack: NonNullable<WirePostureUpdate['ack']> = { eventId: event.eventId ?? '', identityId, status: 'STATUS_ACCEPTED', services: [], revokedSessionIds: [] };
    try {
      if (identityId === '') throw Object.assign(new Error('identity_id is required'), { code: 'COULD_NOT_VALIDATE' });
      stream.connection.noteIdentity(identityId);
      const result = await this.opts.submit({ identityId, apiSessionId: event.apiSessionId ?? '', responses: (event.responses ?? []).map(fromWireResponse) });
      ack.services = result.services;
      ack.revokedSessionIds = result.revokedSessionIds;
    } catch (err) {
      ack.status = 'STATUS_REJECTED';
      ack.errorCode = String((err as { code?: unknown }).code ?? 'UNHANDLED');
      const cause = (err as { apiCause?: { reason?: unknown; message?: unknown } }).apiCause;
      const detail = cause?.reason ?? cause?.message;
      ack.errorMessage = `${err instanceof Error ? err.message : String(err)}${detail ? `: ${String(detail)}` : ''}`;
    }
    if (!stream.closed) stream.call.write({ ack });
  }

  private release(stream: OpenStream): void {
    if (stream.closed) return;
    stream.closed = true;
    stream.connection.close();
    this.streams.delete(stream);
  }

  private fail(call: Call, code: grpc.status, details: string): void {
    if (call.cancelled) return;
    try {
      call.emit('error', { code, details });
    } catch (err) {
      this.opts.onError?.(err);
    }
  }
}

/** Ids of the edge routers a command changed or deleted (their streams must be re-checked). */
export function changedRouterIds(ops: readonly { op: string; kind?: string; id?: string; record?: { id: string } }[]): string[] {
  const ids = new Set<string>();
  for (const op of ops) {
    if (op.kind !== 'edge-routers') continue;
    const id = op.record?.id ?? op.id;
    if (id !== undefined && op.op !== 'create') ids.add(id);
  }
  return [...ids];
}
