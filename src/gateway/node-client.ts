// How the gateway reaches the rest of the node: commands to actors (by entity shard or kind
// catalog) and reads to this node's query handler — always through the bus.

import type { Bus } from '../bus/bus.js';
import { DEFAULT_SHARD_COUNT, entitySubject, querySubject, type CommandScope } from '../bus/subjects.js';
import type { ResourceDecl } from '../domain/resource.js';
import { ApiError, NO_RESPONDERS } from '../errors.js';

function isNoResponders(err: unknown): boolean {
  return err instanceof ApiError && (err.apiCause as { code?: unknown } | undefined)?.code === NO_RESPONDERS;
}

/** Cluster-mode options of a NodeClient. */
export interface NodeClientOptions {
  /** Awaited after each command's answer (the read barrier: this node has applied the write). */
  afterCommand?: () => Promise<void>;
  /** While a shard has no owner (a node died or joined; ownership moves), a command is tried
   * again for up to this many ms. 0 = fail at once. */
  handoverMs?: number;
}

export class NodeClient {
  private readonly querySubject: string;

  constructor(
    private readonly bus: Bus,
    nodeId: string,
    private readonly scope: CommandScope = 'cluster',
    private readonly opts: NodeClientOptions = {},
  ) {
    this.querySubject = querySubject(nodeId);
  }

  /** A read answered from this node's replica. */
  query<T = unknown>(msg: Record<string, unknown>): Promise<T> {
    return this.bus.request(this.querySubject, msg) as Promise<T>;
  }

  /** A read whose answer is wanted as JSON text, to be written into a response unparsed. */
  queryJson(msg: Record<string, unknown>): Promise<string> {
    return this.bus.request(this.querySubject, msg, { raw: true }) as Promise<string>;
  }

  /** A command for the actor that owns `id` of this kind (entity actor or kind catalog). */
  command<T = unknown>(decl: ResourceDecl, op: string, id: string, payload: Record<string, unknown> = {}): Promise<T> {
    const [subject, msg] = decl.actor === 'entity'
      ? [entitySubject(decl.entity, id, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: id, op, id }]
      : [entitySubject('catalog', decl.kind, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: decl.kind, op, id }];
    if (!this.opts.afterCommand && !this.opts.handoverMs) return this.bus.request(subject, msg) as Promise<T>;
    return this.commandInCluster(subject, msg) as Promise<T>;
  }

  private async commandInCluster(subject: string, msg: Record<string, unknown>): Promise<unknown> {
    const deadline = Date.now() + (this.opts.handoverMs ?? 0);
    for (let pause = 20; ; pause = Math.min(pause * 2, 320)) {
      try {
        const answer = await this.bus.request(subject, msg);
        await this.opts.afterCommand?.();
        return answer;
      } catch (err) {
        // Nobody serves the shard: nothing was delivered, so asking again is safe.
        if (!isNoResponders(err) || Date.now() + pause > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}
