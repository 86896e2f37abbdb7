// The edge router catalog actor: router enrollment (from RouterCatalog) plus the system entities
// of tunneler-enabled routers (BEHAVIOR.md §2.6), written in the same command as the router.

import type { Entity, Op } from '../domain/commands.js';
import { routerPolicyName } from '../domain/router-rules.js';
import type { ActorDeps } from './actor-deps.js';
import { RouterCatalog } from './router-catalog.js';

export class EdgeRouterCatalog extends RouterCatalog {
  constructor(deps: ActorDeps) {
    super('edge-routers', 'erott', deps);
  }

  /**
   * A tunneler-enabled router has an identity (type Router) and a system edge router policy,
   * both with the router's id. They follow the router: created when tunneling turns on, renamed
   * with it, deleted when tunneling turns off or the router goes. Missing ones are recreated.
   */
  protected override async relatedOps(old: Entity | undefined, next: Entity | undefined, at: string): Promise<Op[]> {
    const id = (next ?? old)!.id;
    const wasOn = old?.isTunnelerEnabled === true;
    if (next?.isTunnelerEnabled !== true) return wasOn ? removeSystemEntities(id) : [];
    const { replica } = this.deps;
    const identity = old ? await replica.get('identities', id) : undefined;
    const policy = old ? await replica.get('edge-router-policies', id) : undefined;
    const ops: Op[] = [];
    if (!identity) ops.push(this.routerIdentity(id, String(next.name), at));
    else if (identity.name !== next.name) ops.push({ op: 'set', kind: 'identities', id, fields: { name: next.name, updatedAt: at } });
    if (!policy) ops.push(this.systemPolicy(id, at));
    return ops;
  }

  private routerIdentity(id: string, name: string, at: string): Op {
    const op = this.deps.writer.buildCreate('identities', id, { name, type: 'Router', isAdmin: false, roleAttributes: [] }, at);
    op.record.typeId = 'Router';
    op.record.isDefaultAdmin = false;
    op.record.authPolicyId = 'default';
    return op;
  }

  private systemPolicy(id: string, at: string): Op {
    const body = { name: routerPolicyName(id), semantic: 'AnyOf', identityRoles: [`@${id}`], edgeRouterRoles: [`@${id}`] };
    const op = this.deps.writer.buildCreate('edge-router-policies', id, body, at);
    op.record.isSystem = true;
    return op;
  }
}

/** System deletes (they pass the guards that protect these entities from the API). */
function removeSystemEntities(id: string): Op[] {
  return [
    { op: 'delete', kind: 'edge-router-policies', id, ifExists: true, system: true },
    { op: 'delete', kind: 'identities', id, ifExists: true, system: true },
  ];
}
