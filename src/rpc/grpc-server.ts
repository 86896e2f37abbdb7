// The controller's gRPC server: TLS-only, always serves weft.v1.HealthService, and takes any
// further services as (definition, implementation) pairs at start.
import * as grpc from '@grpc/grpc-js';
import { TLS_POLICY } from '../pki/tls-policy.js';
import { loadProto } from './proto-path.js';

/** What the health callback reports; read on every CheckHealth call. */
export interface HealthReport {
  serving: boolean;
  nodeId: string;
  appliedSeq: number;
  /** Cluster mode: the log's last sequence and this node's lag behind it. */
  lastSeq?: number;
  lag?: number;
  /** Why the node is not serving (a stable code), when it is not. */
  reason?: string;
}

/** The server's TLS material, PEM. caPem verifies client certificates when they are offered. */
export interface GrpcTlsOptions {
  certPem: string;
  keyPem: string;
  caPem: string;
}

/** One extra gRPC service to serve next to health. */
export interface GrpcServiceBinding {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
}

/** How to start the server. listen is host:port (port 0 picks a free port). */
export interface GrpcServerOptions {
  listen: string;
  tls: GrpcTlsOptions;
  health: () => HealthReport;
  services?: GrpcServiceBinding[];
}

const SHUTDOWN_GRACE_MS = 2000;
const SERVING = 'SERVING_STATUS_SERVING';
const NOT_SERVING = 'SERVING_STATUS_NOT_SERVING';

interface ServiceConstructor {
  service: grpc.ServiceDefinition;
}

/** The weft.v1.HealthService definition, loaded from proto/weft/v1/health.proto. */
export function healthServiceDefinition(): grpc.ServiceDefinition {
  const pkg = loadProto('weft/v1/health.proto');
  const v1 = (pkg.weft as grpc.GrpcObject).v1 as grpc.GrpcObject;
  return (v1.HealthService as unknown as ServiceConstructor).service;
}

function healthImplementation(health: () => HealthReport): grpc.UntypedServiceImplementation {
  const checkHealth: grpc.handleUnaryCall<unknown, unknown> = (_call, callback) => {
    try {
      const report = health();
      callback(null, {
        status: report.serving ? SERVING : NOT_SERVING,
        nodeId: report.nodeId,
        appliedSeq: report.appliedSeq,
        lastSeq: report.lastSeq ?? 0,
        lag: report.lag ?? 0,
        reason: report.reason ?? '',
      });
    } catch {
      callback({ code: grpc.status.INTERNAL, details: 'health check failed' });
    }
  };
  return { CheckHealth: checkHealth };
}

/**
 * TLS that asks for a client certificate without requiring one: health answers anyone, while
 * services that need a peer (router posture streams) check `call.getAuthContext()`, which only
 * carries a certificate that verified against the node CA. Served under the node's TLS policy
 * (TLS_POLICY, as HTTPS): grpc-js's own credential factories take no cipher or version option,
 * so this subclass of its public ServerCredentials hands the options to the HTTP/2 server itself.
 */
class PolicyServerCredentials extends grpc.ServerCredentials {
  constructor(tls: GrpcTlsOptions) {
    super({ ...TLS_POLICY, requestCert: true, rejectUnauthorized: false }, { ...TLS_POLICY, ca: tls.caPem, cert: tls.certPem, key: tls.keyPem });
  }

  _equals(other: grpc.ServerCredentials): boolean {
    return other === this;
  }
}

function credentials(tls: GrpcTlsOptions): grpc.ServerCredentials {
  return new PolicyServerCredentials(tls);
}

/** Splits host:port (IPv6 hosts in brackets) into its host part; the port is what bind reports. */
function listenHost(listen: string): string {
  const colon = listen.lastIndexOf(':');
  if (colon <= 0) throw new Error(`gRPC listen address must be host:port, got "${listen}"`);
  return listen.slice(0, colon);
}

function bind(server: grpc.Server, listen: string, creds: grpc.ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(listen, creds, (err, port) => (err ? reject(err) : resolve(port)));
  });
}

/** A running gRPC server. */
export class GrpcServer {
  private constructor(
    private readonly server: grpc.Server,
    /** The host:port actually bound (the real port when 0 was asked for). */
    readonly address: string,
  ) {}

  static async start(opts: GrpcServerOptions): Promise<GrpcServer> {
    const host = listenHost(opts.listen);
    const server = new grpc.Server();
    server.addService(healthServiceDefinition(), healthImplementation(opts.health));
    for (const binding of opts.services ?? []) server.addService(binding.definition, binding.implementation);
    const port = await bind(server, opts.listen, credentials(opts.tls));
    return new GrpcServer(server, `${host}:${port}`);
  }

  /** Stops accepting calls and waits for in-flight ones, forcing shutdown after 2 s. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, SHUTDOWN_GRACE_MS);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
