// What actors are given: the node's shared parts (replica, proposer, writer, worker pool,
// signing material, posture runtime, metrics, traces). Types only; the factory and each actor
// import them from here, so no actor imports the factory that creates it.

import type { NodeMetrics } from '../ops/node-metrics.js';
import type { TraceRegistry } from '../ops/trace-registry.js';
import type { Replica } from '../store/replica.js';
import type { WorkerPool } from '../workers/pool.js';
import type { CredentialDeps } from './credentials/credential-deps.js';
import type { EntityWriter } from './entity-writer.js';
import type { PostureRuntime } from './posture/posture-runtime.js';
import type { Proposer } from './proposer.js';

/** Everything an actor may use. Actors get the whole set; each takes what it needs. */
export interface ActorDeps {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
  pool: WorkerPool;
  /** This node's id and its advertised API base URL (for enrollment JWTs and links). */
  nodeId: string;
  baseUrl: string;
  /** The node's signing material (PEM), used for enrollment JWTs and client certificates. */
  signer: { caCertPem: string; caKeyPem: string };
  /** API base URLs of the online controllers (enrollment JWT `ctrls`); default [baseUrl]. */
  controllers?: () => string[];
  /** The posture feature's clock, timers, actor messaging and hooks (see posture-runtime). */
  posture?: PostureRuntime;
  /** Identity traces (node-local): `traces.isTraced(identityId, 'posture')` gives the traceId of
   * a traced identity, `traces.trace(identityId, 'posture', msg, fields)` logs with it. */
  traces?: TraceRegistry;
  /** The node's metrics, e.g. `metrics.postureEvents.inc({ type, result })`. */
  metrics?: NodeMetrics;
}

/** What the identity actor needs: the credential functions' dependencies, and posture's. */
export interface IdentityActorDeps extends CredentialDeps {
  /** Clock, timers and messaging of the posture feature (defaults: real time, no timers). */
  posture?: PostureRuntime;
}
