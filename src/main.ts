#!/usr/bin/env node
// The composition root: config → store → log → bus → workers → actors → gateway → rpc. The
// only module that knows every layer; run directly it starts one node from flags and env.

import { chmod, mkdir } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:https';
import { join, resolve } from 'node:path';
import { NatsError } from 'nats';
import { ActorHost } from './actors/actor-host.js';
import { certFingerprint, NodeRegistry, type NodeDirectory } from './actors/node-registry.js';
import { createCatalogActor, createEntityActor, type ActorDeps } from './actors/actor-factory.js';
import { bootstrap } from './actors/bootstrap.js';
import { EntityWriter } from './actors/entity-writer.js';
import { Proposer } from './actors/proposer.js';
import { QueryHandler } from './query/query-handler.js';
import { SessionKeeper } from './actors/session-keeper.js';
import { postureRuntime, type Clock, type Timers } from './actors/posture/posture-runtime.js';
import { RouterPresence } from './rpc/router-presence.js';
import type { Bus } from './bus/bus.js';
import { MemoryBus } from './bus/memory-bus.js';
import { NatsBus } from './bus/nats-bus.js';
import { querySubject, scopedEventSubject, type CommandScope } from './bus/subjects.js';
import { ConfigError, helpText, isEntryPoint, loadConfig, splitAddress, type Config } from './config.js';
import type { Command } from './domain/commands.js';
import { RESOURCES } from './domain/registry.js';
import { createGateway } from './gateway/app.js';
import { PRODUCT_VERSION } from './gateway/routes/info-routes.js';
import { NodeClient } from './gateway/node-client.js';
import { LoginLimiter } from './gateway/middleware/login-limiter.js';
import { LocalLog } from './log/local-log.js';
import type { JetStreamLog } from './log/jetstream-log.js';
import type { Log } from './log/log.js';
import { ClusterNode, COMMAND_TTL_MS, type ClusterConfig } from './cluster/cluster-node.js';
import { ClusterJoinError } from './cluster/cluster-join.js';
import { causeOf } from './cluster/start-retry.js';
import { NodeIdInUseError } from './cluster/membership.js';
import { createLogger, type Logger } from './logger.js';
import { listen, loadTls, readOrCreateNodeId, TLS_POLICY } from './node-setup.js';
import { ListenerDrain } from './listener-drain.js';
import { AdminPasswordFile } from './ops/admin-password-file.js';
import { IntegrityRunner } from './ops/integrity-runner.js';
import { NodeMetrics } from './ops/node-metrics.js';
import { NodeHealth } from './ops/node-health.js';
import { ClusterStatus, embeddedStatusHandler } from './cluster/cluster-status.js';
import { ownedShards } from './cluster/shard-map.js';
import { OpsHandler } from './ops/ops-handler.js';
import { createErrorLogger, createRequestObserver } from './ops/request-observer.js';
import { SnapshotTaker } from './ops/snapshot-taker.js';
import { TRACE_POSTURE, TraceRegistry } from './ops/trace-registry.js';
import { GrpcServer } from './rpc/grpc-server.js';
import { removeLeftCheckpoints, SnapshotService } from './rpc/snapshot-service.js';
import { prepareReplica, SnapshotJoinError } from './cluster/snapshot-join.js';
import { startPostureStreams } from './posture-streams.js';
import { CachedKv } from './store/cached-kv.js';
import { Replica } from './store/replica.js';
import { WorkerPool } from './workers/pool.js';
import { schedulingReport } from './workers/thread-priority.js';

/** A running node, as tests and the CLI see it. */
export interface NodeHandle {
  nodeId: string;
  /** https://host:port of the API. */
  url: string;
  grpcAddress: string;
  /** The CA clients must trust (PEM). */
  caPem: string;
  /** Set on the first start when the admin password was generated. */
  generatedAdminPassword?: string;
  replica: Replica;
  actors: ActorHost;
  /** The node's metrics (GET /metrics) and identity traces. */
  metrics: NodeMetrics;
  /** Liveness and readiness (GET /healthz, GET /readyz, gRPC health). */
  health: NodeHealth;
  traces: TraceRegistry;
  /** Appends commands to this node's log (tests set up state the API cannot, e.g. router fingerprints). */
  proposer: Proposer;
  /** Resolves once posture re-evaluations of changes seen so far are done (tests, benchmarks). */
  postureIdle(): Promise<void>;
  /** Stops the node at once: the listener closes (requests in flight finish, bounded), then everything else. */
  close(): Promise<void>;
  /** A graceful stop (SIGTERM): GET /readyz answers 503 SHUTTING_DOWN and every answer closes
   * its connection, while the node goes on serving for `graceMs` (or until `skipGrace` aborts)
   * so balancers send new connections elsewhere; then close(). */
  shutdown(graceMs: number, skipGrace?: AbortSignal): Promise<void>;
}

/** In-process overrides (tests): the posture clock and timers, so MFA timeouts run without sleeping. */
export interface NodeHooks {
  clock?: Clock;
  timers?: Timers;
  /** Cluster mode: this node's position in the log was trimmed away while it ran; it has left
   * the membership and must be closed and started again (it then re-joins from a snapshot). */
  onLogTrimmed?: () => void;
}

export async function startNode(config: Config, logger: Logger, hooks: NodeHooks = {}): Promise<NodeHandle> {
  const startedAt = new Date().toISOString();
  const dataDir = resolve(config.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const nodeId = config.nodeId ?? (await readOrCreateNodeId(dataDir));
  const log = logger.child({ node: nodeId });
  const { host, port } = splitAddress(config.listen);
  const cluster = config.clusterSecret ? await ClusterNode.connect(clusterConfig(config), dataDir, nodeId, log) : undefined;
  const tls = await loadTls(config, dataDir, host, cluster?.ca);
  // Listen first, so that the advertised URL has the real port even when port 0 was asked
  // for; until the gateway is ready every request gets 503.
  let handle: RequestListener = (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The controller is starting' }, meta: {} }));
  };
  // Clients may present a certificate (cert login, enrollment, extension); Weft verifies it
  // itself, so the handshake accepts any or none.
  const server = createServer({ ...TLS_POLICY, cert: tls.certPem, key: tls.keyPem, requestCert: true, rejectUnauthorized: false });
  const drain = new ListenerDrain(server);
  server.on('request', (req, res) => handle(req, res));
  server.keepAliveTimeout = 65_000;
  await listen(server, host, port);
  const bound = server.address();
  const boundPort = typeof bound === 'object' && bound ? bound.port : port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  const baseUrl = config.advertise ? `https://${config.advertise}` : url;

  // A new node, or one whose log position was trimmed, starts from a ready peer's snapshot.
  const joined = cluster && await prepareReplica({ nc: cluster.bus.connection, clusterName: config.clusterName, nodeId, replicaDir: join(dataDir, 'replica'), tls, log, retry: cluster.retry });
  // The index tree is built once the node serves (reads go to LevelDB until then): start-up
  // does not share the CPU with a build that grows with the data.
  const kv = new CachedKv({ path: join(dataDir, 'replica'), cacheBytes: config.cacheMb * 1024 * 1024, deferWarming: true });
  await kv.open();
  const replica = new Replica(kv, { recordCacheBytes: kv.shares.records });
  await replica.open();
  const announcement = { id: nodeId, baseUrl, ctrlAddress: null, certPem: tls.certPem, fingerprint: certFingerprint(tls.certPem), startedAt };
  // In a cluster, a node id that is live elsewhere is refused before this node writes anything.
  const membership = cluster ? await cluster.openMembership(announcement, replica) : undefined;
  let stopShards: (() => Promise<void>) | undefined;
  const commandLog: Log<Command> = cluster ? await cluster.openLog() : new LocalLog<Command>({ path: join(dataDir, 'log') });
  if (!cluster) await commandLog.open();
  const bus: Bus = cluster?.bus ?? (config.natsUrl ? await NatsBus.connect(config.natsUrl.split(','), {
    name: `weft-${nodeId}`,
    onConnectionChange: (up) => (up ? log.info('NATS connection regained') : log.error('NATS connection lost; requests answer 503 until it is back')),
  }) : new MemoryBus());
  const pool = WorkerPool.create({ threads: config.workerThreads, priority: config.workerPriority });
  void pool.threadScheduling().then((got) => {
    const { level, msg } = schedulingReport(config.workerPriority, got);
    log[level](msg, { threads: config.workerThreads, priority: config.workerPriority, idle: got?.idle, nice: got?.nice });
  }, (err) => log.error('worker pool failed to start', { error: err }));

  const applying = cluster
    ? cluster.followLog(commandLog as JetStreamLog<Command>, replica, async () => stopShards?.(), hooks.onLogTrimmed)
    : commandLog.followBatches(replica.appliedSeq, (entries) => replica.applyBatch(entries));
  const startSeq = await (cluster ? cluster.retry('read the cluster log\'s last sequence', () => commandLog.lastSeq()) : commandLog.lastSeq());
  await replica.waitFor(startSeq, 120_000).catch(() => undefined);

  const proposer = new Proposer(commandLog, replica, nodeId, cluster && COMMAND_TTL_MS);
  const writer = new EntityWriter(replica, proposer);
  const sessions = new SessionKeeper(replica, proposer, { timeoutMinutes: config.sessionTimeoutMinutes });
  // A cluster's actors serve the shards this node owns of the cluster-wide command subjects; an
  // embedded node's log is its own, so its actors serve node-scoped subjects: another node on
  // the same NATS never takes this node's writes.
  const scope: CommandScope = cluster ? { cluster: config.clusterName } : { node: nodeId };
  const barrier = cluster?.barrier(commandLog as JetStreamLog<Command>, replica);
  const commands = barrier && membership && cluster?.commandOptions(replica, barrier, membership);
  const health = new NodeHealth({
    nodeId,
    appliedSeq: () => replica.appliedSeq,
    cluster: cluster && membership && {
      lastSeq: () => commandLog.lastSeq(),
      natsConnected: () => cluster.bus.isConnected(),
      failure: () => cluster.failure,
      draining: () => membership.draining,
    },
    onPoll: (h) => membership?.update({ health: { ready: h.ready, reason: h.reason } }),
  });
  const traces = new TraceRegistry(log);
  const loginLimiter = new LoginLimiter();
  const metrics = new NodeMetrics({
    actors: () => ({ ...actors.depth(), families: actors.familyDepths() }),
    appliedSeq: () => replica.appliedSeq,
    // A cluster node's health reads the stream's last sequence every second: a scrape uses it.
    lastSeq: cluster ? () => health.lastReadSeq : () => commandLog.lastSeq(),
    pool: () => pool.stats(),
    loginLimiter: () => loginLimiter.state(),
    ready: () => health.status().ready,
    cluster: membership && (() => {
      const serving = membership.readyMembers();
      return { members: membership.live().length, readyMembers: serving.length, shardsOwned: ownedShards(nodeId, serving).size };
    }),
  });
  if (joined?.joined) metrics.snapshotTransfers.inc({ direction: 'received', result: 'ok' });
  const actors = new ActorHost(bus, {
    mailboxSize: config.mailboxSize, maxInFlight: 10_000, scope, sharded: cluster?.shardedHost(commandLog as JetStreamLog<Command>, replica, nodeId), onReject: (source) => metrics.rejections.inc({ source }),
  });
  const registry = membership ? undefined : new NodeRegistry(bus, announcement, {
    onHeartbeat: (failure) => (failure === undefined ? log.info('heartbeats resumed') : log.warn('heartbeats failing', { cause: causeOf(failure) })),
  });
  const nodes: NodeDirectory = membership ?? registry!;
  const client = new NodeClient(bus, nodeId, scope, commands);
  const presence = new RouterPresence();
  const posture = postureRuntime({
    clock: hooks.clock,
    timers: hooks.timers,
    tell: (identityId, msg) => client.identity(msg.op, identityId),
    publishRevocation: (event) => void bus.publish(scopedEventSubject(scope, 'posture.revocations'), event).catch((err) => log.warn('revocation publish failed', { error: err })),
    observer: {
      count: (type, result, n = 1) => metrics.postureEvents.inc({ type, result }, n),
      isTraced: (identityId) => traces.isTraced(identityId, TRACE_POSTURE) !== undefined,
      trace: (identityId, message, detail) => void traces.trace(identityId, TRACE_POSTURE, message, detail),
    },
  });
  const deps: ActorDeps = {
    replica, proposer, writer, pool, nodeId, baseUrl,
    signer: { caCertPem: tls.caPem, caKeyPem: tls.caKeyPem },
    controllers: () => nodes.onlineUrls(),
    traces,
    metrics,
    posture,
  };
  for (const decl of RESOURCES.filter((r) => r.actor === 'entity')) {
    await actors.register(decl.entity, (id) => createEntityActor(decl, id, deps));
  }
  await actors.register('catalog', (kind) => createCatalogActor(kind, deps));
  const queries = new QueryHandler(replica, sessions, nodes, presence);
  const snapshots = new SnapshotTaker({ kv: replica.kv, replicaDir: join(dataDir, 'replica'), flush: () => kv.flush(), dir: join(dataDir, 'snapshots'), log });
  const integrity = new IntegrityRunner({ replica, proposer, backup: () => snapshots.take(true), log });
  const ops = new OpsHandler({ replica, integrity, snapshots, traces });
  queries.delegate('ops', (msg) => ops.handle(msg));
  const clusterStatus = cluster && membership && new ClusterStatus({
    nodeId, clusterName: config.clusterName, clusterId: cluster.clusterId, nc: cluster.bus.connection, membership,
  });
  queries.delegate('cluster', clusterStatus ? (msg) => clusterStatus.handle(msg) : embeddedStatusHandler(() => ({
    id: nodeId, version: PRODUCT_VERSION, ready: health.status().ready, appliedSeq: replica.appliedSeq,
    onlineSince: startedAt, address: baseUrl, ctrlAddress: `tls:${grpc.address}`, isLocal: true,
  })));
  // Reads are answered from this node's replica and never cross the network (design decision 4).
  const querySub = await bus.serve(querySubject(nodeId), (msg) => queries.handle(msg as Record<string, unknown>), { local: true });
  sessions.start((err) => log.warn('session upkeep failed', { error: err }));

  const boot = await bootstrap({
    replica, proposer, writer, pool,
    username: config.adminUsername,
    password: config.adminPassword,
    passwordFile: join(dataDir, 'admin-password'),
  });
  const adminPasswordFile = new AdminPasswordFile(join(dataDir, 'admin-password'), replica, config.adminUsername);
  await adminPasswordFile.start((err) => log.warn('admin-password file check failed', { error: err }));

  const app = createGateway({
    bus,
    nodeId,
    scope,
    baseUrl: () => baseUrl,
    logError: createErrorLogger(log),
    onRequest: createRequestObserver({ log, metrics, traces }),
    metrics: () => metrics.render(),
    health: () => health.status(),
    loginLimiter,
    sessionsVersion: () => sessions.resolutionVersion,
    barrier: barrier && (async () => {
      const started = performance.now();
      try {
        await barrier.sync();
      } finally {
        metrics.readBarrier.observe({}, (performance.now() - started) / 1000);
      }
    }),
    commands,
  });
  handle = app.callback();

  if (cluster) await removeLeftCheckpoints(dataDir);
  const postureStreams = await startPostureStreams({ replica, bus, client, presence, posture, pool, caPem: tls.caPem, log, scope });
  const grpc = await GrpcServer.start({
    listen: config.grpcListen,
    tls: { certPem: tls.certPem, keyPem: tls.keyPem, caPem: tls.caPem },
    health: () => {
      const h = health.status();
      return { serving: h.ready, nodeId, appliedSeq: h.appliedSeq, lastSeq: h.lastSeq, lag: h.lag, reason: h.reason };
    },
    services: [postureStreams.service.binding(), ...(cluster ? [new SnapshotService({
      replicaDir: join(dataDir, 'replica'), workDir: dataDir, flush: () => kv.flush(), nodeId, caPem: tls.caPem,
      onTransfer: (t) => {
        metrics.snapshotTransfers.inc({ direction: 'sent', result: 'ok' });
        log.info('snapshot sent', { bytes: t.bytes, files: t.files, appliedSeq: t.appliedSeq, ms: Math.round(t.ms) });
      },
      onError: (err) => {
        metrics.snapshotTransfers.inc({ direction: 'sent', result: 'failed' });
        log.warn('snapshot transfer failed', { error: err });
      },
    }).binding()] : [])],
  });
  registry?.update({ ctrlAddress: `tls:${grpc.address}` });
  membership?.update({ ctrlAddress: `tls:${grpc.address}` });
  await registry?.start();
  stopShards = cluster && membership ? await cluster.startMember(membership, actors, replica, nodeId, presence) : undefined;
  health.start();
  const warming = performance.now();
  kv.whenWarm().then(
    () => log.info('replica cached in memory', { ms: Math.round(performance.now() - warming), indexInMemory: kv.indexInMemory }),
    (err) => log.error('replica cache failed; writes are refused', { error: err }),
  );

  let closing: Promise<void> | undefined;
  // Every step runs even when an earlier one fails (e.g. shard subscriptions that cannot be
  // flushed while NATS is reconnecting): a step skipped would leave the NATS connection, the log
  // follower or LevelDB open. The first failure is thrown once everything is closed.
  const close = () =>
    (closing ??= (async () => {
      let failure: unknown;
      const step = async (what: string, fn: () => unknown) => {
        try {
          await fn();
        } catch (err) {
          log.warn(`closing: ${what} failed`, { error: err });
          failure ??= err;
        }
      };
      health.beginShutdown();
      health.stop();
      const { cut } = await drain.close();
      if (cut > 0) log.warn('closing: connections still answering after the drain bound were cut', { connections: cut });
      adminPasswordFile.stop();
      await step('posture streams', () => postureStreams.close());
      await step('gRPC server', () => grpc.close());
      await step('node registry', () => registry?.stop());
      await step('shards', () => stopShards?.());
      await step('final session flush', () => sessions.stop());
      await step('integrity runner', () => integrity.close());
      await step('query subscription', () => querySub.unsubscribe());
      await step('list cursors', async () => queries.close());
      await step('actors', () => actors.close());
      await step('bus', () => bus.close());
      await step('log follower', () => applying.close());
      await step('worker pool', () => pool.close());
      await step('log', () => commandLog.close());
      await step('replica', () => kv.close());
      if (failure) throw failure;
    })());

  return {
    nodeId, url, grpcAddress: grpc.address, caPem: tls.caPem,
    generatedAdminPassword: boot?.generatedPassword,
    replica, actors, metrics, health, traces, proposer, postureIdle: () => postureStreams.reevaluator.idle(), close,
    async shutdown(graceMs, skipGrace) {
      health.beginShutdown();
      drain.windDown();
      if (graceMs > 0 && !closing) {
        log.info('shutting down: not ready, serving on for the grace period', { graceMs });
        await graceOver(graceMs, skipGrace);
        log.info('shutting down: closing the listener', { connections: await drain.openConnections() });
      }
      await close();
    },
  };
}

/** Resolves after `ms`, or at once when `skip` aborts. */
function graceOver(ms: number, skip?: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (skip?.aborted) return done();
    const timer = setTimeout(finish, ms);
    skip?.addEventListener('abort', finish, { once: true });
    function finish() {
      clearTimeout(timer);
      skip?.removeEventListener('abort', finish);
      done();
    }
  });
}

function clusterConfig(config: Config): ClusterConfig {
  return {
    natsUrls: config.natsUrl!.split(','), secret: config.clusterSecret!, previousSecret: config.clusterPreviousSecret, name: config.clusterName, replicas: config.clusterReplicas,
    logMaxAgeMs: config.logMaxAgeMs, logMaxBytes: config.logMaxBytes, startTimeoutMs: config.clusterStartTimeoutMs,
  };
}

async function runCli(): Promise<void> {
  // Set once for the process: every file the node creates (LevelDB, keys, logs) is owner-only
  // from its first byte. (An embedding process sets its own; LevelKv tightens its files anyway.)
  process.umask(0o077);
  let config: Config | 'help';
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`weft-controller: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  if (config === 'help') {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  const logger = createLogger(config.logLevel);
  let node: NodeHandle;
  // A node cut off from the log for longer than it is kept starts again, from a peer's snapshot.
  const restart = () => {
    logger.warn('restarting this node from a peer snapshot');
    void node.close().then(() => startNode(config, logger, { onLogTrimmed: restart })).then((next) => (node = next)).catch((err) => {
      logger.error('re-joining from a snapshot failed', { error: err });
      process.exit(1);
    });
  };
  try {
    node = await startNode(config, logger, { onLogTrimmed: restart });
  } catch (err) {
    if (err instanceof ClusterJoinError || err instanceof NodeIdInUseError || err instanceof SnapshotJoinError) {
      process.stderr.write(`weft-controller: ${err.message}\n`);
      process.exit(2);
    }
    const message = startFailureMessage(err);
    if (message) {
      process.stderr.write(`weft-controller: ${message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (node.generatedAdminPassword) {
    // Shown once, on the first start only; kept owner-only in the data dir.
    process.stdout.write(
      `\nDefault admin created: username "${config.adminUsername}", password ${node.generatedAdminPassword}\n` +
        `(shown once; also stored in ${join(resolve(config.dataDir), 'admin-password')}, mode 0600)\n\n`,
    );
  }
  logger.info('listening', { node: node.nodeId, api: `${node.url}/edge/management/v1`, client: `${node.url}/edge/client/v1`, grpc: node.grpcAddress, ca: join(resolve(config.dataDir), 'pki', 'ca.pem') });
  // The first signal stops gracefully (config.shutdownGraceMs); a second one during the grace ends
  // it at once (Ctrl-C twice), and one after it exits without waiting for the close to finish.
  const skipGrace = new AbortController();
  let graceUntil: number | undefined;
  const stop = (signal: string) => {
    if (graceUntil !== undefined && !skipGrace.signal.aborted && Date.now() < graceUntil) {
      logger.info('second signal: ending the grace period now', { node: node.nodeId, signal });
      skipGrace.abort();
      return;
    }
    if (graceUntil !== undefined) {
      logger.warn('signal while closing: exiting without waiting', { node: node.nodeId, signal });
      process.exit(1);
    }
    graceUntil = Date.now() + config.shutdownGraceMs;
    logger.info('draining', { node: node.nodeId, signal, graceMs: config.shutdownGraceMs });
    node.shutdown(config.shutdownGraceMs, skipGrace.signal).then(
      () => {
        logger.info('stopped', { node: node.nodeId });
        process.exit(0);
      },
      (err) => {
        logger.error('shutdown failed', { node: node.nodeId, error: err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** The operator's one-line message for a failure at start the operator can act on: a NATS
 * request that failed, retried until the start timeout (most often a JetStream request left unanswered while JetStream still forms
 * its cluster, or is too busy to create the cluster's stream and buckets in time), or a listen
 * address in use; undefined for any other failure. */
export function startFailureMessage(err: unknown): string | undefined {
  if (err instanceof NatsError) {
    if (err.code !== 'TIMEOUT') return `a NATS request failed while this node was starting: ${err.message} (${err.code})`;
    return 'NATS did not answer a JetStream request in time while this node was starting (TIMEOUT), not within ' +
      '--cluster-start-timeout / WEFT_CLUSTER_START_TIMEOUT either: JetStream may still be forming its cluster, or be ' +
      'overloaded. Starting the node again is safe (a service manager that restarts it on failure does so by itself)';
  }
  if (!(err instanceof Error)) return undefined;
  const errno = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (errno.code === 'EADDRINUSE' || errno.code === 'EACCES' || errno.code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${errno.address}:${errno.port} (${errno.code}): choose another address with --listen / WEFT_LISTEN`;
  }
  // grpc-js reports a failed bind as a plain Error naming the cause.
  const grpcBind = /No address added.*\[(listen \w+: [^\]]*)\]/.exec(err.message);
  if (grpcBind) return `cannot open the gRPC listener: ${grpcBind[1]}: choose another address with --grpc-listen / WEFT_GRPC_LISTEN`;
  return undefined;
}

if (isEntryPoint(import.meta.url)) {
  runCli().catch((err) => {
    process.stderr.write(`weft-controller: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
