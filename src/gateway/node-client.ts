// How the gateway reaches the rest of the node: commands to actors (by entity shard or kind
// catalog) and reads to this node's query handler — always through the bus.

import type { Bus } from '../bus/bus.js';
import { DEFAULT_SHARD_COUNT, entitySubject, querySubject, type CommandScope } from '../bus/subjects.js';
import type { ResourceDecl } from '../domain/resource.js';

export class NodeClient {
  private readonly querySubject: string;

  constructor(
    private readonly bus: Bus,
    nodeId: string,
    private readonly scope: CommandScope = 'cluster',
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
    if (decl.actor === 'entity') {
      return this.bus.request(entitySubject(decl.entity, id, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: id, op, id }) as Promise<T>;
    }
    return this.bus.request(entitySubject('catalog', decl.kind, DEFAULT_SHARD_COUNT, this.scope), { ...payload, key: decl.kind, op, id }) as Promise<T>;
  }
}
