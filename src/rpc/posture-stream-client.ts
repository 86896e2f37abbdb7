// A client of weft.v1.PostureService for routers, scripts, benchmarks and tests: opens the
// bidirectional stream with a client certificate, sends events (REST-shaped responses are
// converted) and resolves each send with its acknowledgement; access changes go to a callback.

import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { loadProto } from './proto-path.js';
import { toWireResponse, type WireAccessChange, type WirePostureAck, type WirePostureEvent, type WirePostureUpdate } from './posture-wire.js';

export interface PostureStreamOptions {
  /** host:port of the node's gRPC server. */
  address: string;
  caPem: string;
  /** The router's client certificate and key (PEM); without them no certificate is offered. */
  certPem?: string;
  keyPem?: string;
  /** The name the server certificate is checked against (default: the address host). */
  serverName?: string;
  onAccessChange?: (change: WireAccessChange) => void;
}

/** One event to send: REST-shaped posture responses (`{id, typeId, ...}`). */
export interface PostureEventInput {
  identityId: string;
  apiSessionId?: string;
  responses: Record<string, unknown>[];
  eventId?: string;
}

type Duplex = grpc.ClientDuplexStream<WirePostureEvent, WirePostureUpdate>;

export class PostureStream {
  private readonly pending = new Map<string, { resolve: (ack: WirePostureAck) => void; reject: (err: Error) => void }>();
  private failure?: Error;
  /** Resolves when the server ends the stream; rejects with its error status. */
  readonly closed: Promise<void>;

  private constructor(
    private readonly client: grpc.Client,
    private readonly call: Duplex,
    onAccessChange?: (change: WireAccessChange) => void,
  ) {
    call.on('data', (update: WirePostureUpdate) => {
      if (update.ack) {
        const waiter = this.pending.get(update.ack.eventId);
        this.pending.delete(update.ack.eventId);
        waiter?.resolve(update.ack);
      } else if (update.accessChange) onAccessChange?.(update.accessChange);
    });
    this.closed = new Promise((resolve, reject) => {
      call.on('error', (err) => {
        this.failure = err;
        for (const waiter of this.pending.values()) waiter.reject(err);
        this.pending.clear();
        reject(err);
      });
      call.on('end', () => resolve());
    });
    this.closed.catch(() => undefined);
  }

  static open(opts: PostureStreamOptions): PostureStream {
    const v1 = (loadProto('weft/v1/posture.proto').weft as grpc.GrpcObject).v1 as grpc.GrpcObject;
    const Ctor = v1.PostureService as grpc.ServiceClientConstructor;
    const creds = opts.certPem && opts.keyPem
      ? grpc.credentials.createSsl(Buffer.from(opts.caPem), Buffer.from(opts.keyPem), Buffer.from(opts.certPem))
      : grpc.credentials.createSsl(Buffer.from(opts.caPem));
    const options: grpc.ChannelOptions = opts.serverName
      ? { 'grpc.ssl_target_name_override': opts.serverName, 'grpc.default_authority': opts.serverName }
      : {};
    const client = new Ctor(opts.address, creds, options);
    const call = (client as unknown as { StreamPostureEvents(): Duplex }).StreamPostureEvents();
    return new PostureStream(client, call, opts.onAccessChange);
  }

  /** Sends one event and resolves with its acknowledgement. */
  send(event: PostureEventInput): Promise<WirePostureAck> {
    if (this.failure) return Promise.reject(this.failure);
    const eventId = event.eventId ?? randomUUID();
    return new Promise((resolve, reject) => {
      this.pending.set(eventId, { resolve, reject });
      this.call.write({
        eventId,
        identityId: event.identityId,
        apiSessionId: event.apiSessionId ?? '',
        responses: event.responses.map(toWireResponse),
      });
    });
  }

  /** Half-closes the stream and waits for the server to end it. */
  async end(): Promise<void> {
    this.call.end();
    await this.closed.catch(() => undefined);
    this.client.close();
  }

  /** Drops the stream at once. */
  cancel(): void {
    this.call.cancel();
    this.client.close();
  }
}
