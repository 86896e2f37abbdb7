// Access questions answered from the access index: related lists derived from policies, the
// policy advisor, and role filters on lists. Node-local reads only.

import type { Entity } from '../domain/commands.js';
import { splitRoles, type Semantic } from '../domain/policy.js';
import { isKind, kindOf } from '../domain/registry.js';
import { findRelation } from '../domain/relations.js';
import { ApiError, fieldError } from '../errors.js';
import { AccessReader } from '../store/access-reader.js';
import type { Scope } from '../store/query-engine.js';
import type { Replica } from '../store/replica.js';
import { entityRef } from './present.js';

export class AccessQueries {
  readonly reader: AccessReader;

  constructor(private readonly replica: Replica) {
    this.reader = new AccessReader(replica);
  }

  /** The scope of `/<parent>/{id}/<child>`; 404 when the parent does not exist. */
  async relationScope(parent: { kind: string; id: string }, child: string, policyType?: string): Promise<Scope> {
    const relation = findRelation(parent.kind, child);
    if (!relation) throw new ApiError('NOT_FOUND');
    if (!isKind(parent.kind) || !(await this.replica.get(parent.kind, parent.id))) throw new ApiError('NOT_FOUND');
    const via = relation.via;
    if ('index' in via) return { field: via.index, value: parent.id };
    // A declared relation names declared kinds (test/unit/domain/registry.test.ts).
    const childKind = kindOf(child);
    // Ids read from links: each names a stored record (a page of them needs only its records).
    if ('members' in via) return { ids: await this.reader.membersOf(parent.kind, parent.id, childKind), stored: true };
    if ('policies' in via) return { ids: await this.reader.policiesOf(parent.kind, parent.id, childKind), stored: true };
    const type = policyTypeFilter(via.through, policyType);
    return { ids: await this.reader.reachable(parent.kind, parent.id, kindOf(via.through), childKind, type), stored: true };
  }

  /** `/identities/{id}/policy-advice/{serviceId}`: may it dial / bind, and over which routers. */
  async policyAdvice(identityId: string, serviceId: string): Promise<Record<string, unknown>> {
    // Both records and their policy lists in one read (at a million identities the identity's
    // are rarely in memory: one store round trip instead of three).
    const [
      { record: identity, policies: [identityServicePolicies, identityRouterPolicies] },
      { record: service, policies: [serviceServicePolicies, serviceRouterPolicies] },
    ] = await this.reader.withPolicies([
      { kind: 'identities', id: identityId, policyKinds: ['service-policies', 'edge-router-policies'] },
      { kind: 'services', id: serviceId, policyKinds: ['service-policies', 'service-edge-router-policies'] },
    ]);
    if (!identity || !service) throw new ApiError('NOT_FOUND');
    const granting = await this.reader.grantingOf(identityServicePolicies, serviceServicePolicies);
    const identityRouters = await this.reader.reachableThrough(identityRouterPolicies, 'edge-router-policies', 'edge-routers');
    const serviceRouters = await this.reader.reachableThrough(serviceRouterPolicies, 'service-edge-router-policies', 'edge-routers');
    const common = [...identityRouters].filter((id) => serviceRouters.has(id)).sort();
    const routers = (await this.replica.getMany('edge-routers', common)).filter((r): r is Entity => r !== undefined);
    return {
      identityId,
      identity: entityRef('identities', identityId, String(identity.name)),
      serviceId,
      service: entityRef('services', serviceId, String(service.name)),
      isDialAllowed: granting.some((p) => p.type === 'Dial'),
      isBindAllowed: granting.some((p) => p.type === 'Bind'),
      identityRouterCount: identityRouters.size,
      serviceRouterCount: serviceRouters.size,
      commonRouters: routers.map((r) => ({ id: r.id, name: r.name, isOnline: r.isOnline === true })),
    };
  }

  /**
   * `roleFilter` / `roleSemantic` on role-aware lists: `@id` selects by id, `#attr` by role
   * attribute; unlike policies, `#all` here only matches the literal attribute `all`.
   */
  async roleFilterScope(kind: string, roleFilter: string[], roleSemantic: string | undefined): Promise<Scope> {
    const semantic = (roleSemantic ?? 'AllOf') as Semantic;
    if (semantic !== 'AllOf' && semantic !== 'AnyOf') throw fieldError('roleSemantic', roleSemantic, 'roleSemantic must be AllOf or AnyOf');
    const roles = splitRoles(roleFilter.map((r) => (r === '#all' ? '#\u0000all' : r)));
    const attributes = roles.attributes.map((a) => (a === '\u0000all' ? 'all' : a));
    const ids = new Set(roles.ids);
    const sets: Set<string>[] = [];
    for (const attr of attributes) {
      const set = new Set<string>();
      for await (const id of this.replica.idsWhere(kind, 'roleAttributes', attr)) set.add(id);
      sets.push(set);
    }
    if (sets.length > 0) {
      const [first, ...rest] = sets;
      const combined = semantic === 'AnyOf' ? sets.flatMap((s) => [...s]) : [...first].filter((id) => rest.every((s) => s.has(id)));
      for (const id of combined) ids.add(id);
    }
    return { ids };
  }
}

/** identities → services can be narrowed to Dial or Bind policies with `policyType`. */
function policyTypeFilter(policyKind: string, policyType: string | undefined): ((p: Entity) => boolean) | undefined {
  if (policyKind !== 'service-policies' || !policyType) return undefined;
  const wanted = policyType.toLowerCase();
  if (wanted !== 'dial' && wanted !== 'bind') throw fieldError('policyType', policyType, 'policyType must be dial or bind');
  return (p) => String(p.type).toLowerCase() === wanted;
}
