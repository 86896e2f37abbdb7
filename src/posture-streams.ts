// The posture feature's node-level wiring, started by main.ts: bulk re-evaluation on model
// changes, the router posture stream (gRPC), revocations pushed to the streams, and streams
// closed when their router's certificate stops matching its record.

import { PostureReevaluator } from './actors/posture/posture-reevaluator.js';
import type { PostureRuntime } from './actors/posture/posture-runtime.js';
import type { RouterPresence } from './rpc/router-presence.js';
import type { Bus } from './bus/bus.js';
import { scopedEventSubject, type CommandScope } from './bus/subjects.js';
import type { Command } from './domain/commands.js';
import type { NodeClient } from './gateway/node-client.js';
import type { Logger } from './logger.js';
import type { Replica } from './store/replica.js';
import type { WorkerPool } from './workers/pool.js';
import { changedRouterIds, PostureStreamService, type Revocation } from './rpc/posture-service.js';
import { RouterAuthenticator } from './rpc/router-auth.js';

/**
 * The posture feature's node-level parts: bulk re-evaluation on model changes, the router
 * posture stream (gRPC), revocations pushed to the streams, and streams closed when their
 * router's certificate stops matching its record (re-enroll, delete).
 */
export async function startPostureStreams(opts: {
  replica: Replica;
  bus: Bus;
  client: NodeClient;
  presence: RouterPresence;
  posture: PostureRuntime;
  pool: WorkerPool;
  caPem: string;
  log: Logger;
  /** Whose revocations the streams hear: this cluster's (or this node's). */
  scope: CommandScope;
}) {
  const { replica, bus, client, log } = opts;
  const reevaluator = new PostureReevaluator({ replica, pool: opts.pool, runtime: opts.posture, onError: (err) => log.warn('posture re-evaluation failed', { error: err }) });
  reevaluator.start();
  const service = new PostureStreamService({
    auth: new RouterAuthenticator({ caPem: opts.caPem, router: (id) => replica.get('edge-routers', id) }),
    presence: opts.presence,
    submit: (event) =>
      client.identity('postureResponses', event.identityId, {
        apiSessionId: event.apiSessionId, responses: event.responses, source: 'grpc',
      }),
    onError: (err) => log.warn('posture stream failed', { error: err }),
  });
  const revocations = await bus.subscribe(scopedEventSubject(opts.scope, 'posture.revocations'), (msg) => service.notify(msg as Revocation));
  const onApplied = (event: { command: Command }) => {
    const ids = changedRouterIds(event.command.ops);
    if (ids.length > 0) service.recheck(ids).catch((err) => log.warn('router stream re-check failed', { error: err }));
  };
  replica.events.on('applied', onApplied);
  return {
    service,
    reevaluator,
    async close() {
      replica.events.off('applied', onApplied);
      service.close();
      await revocations.unsubscribe();
      await reevaluator.stop();
    },
  };
}
