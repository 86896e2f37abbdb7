// Reads the access index: which policies select an entity, which entities a policy selects,
// and what an entity reaches through a policy kind. Lookups over links, never a policy scan.

import type { Entity } from '../domain/commands.js';
import type { Kind } from '../domain/registry.js';
import { entityPoliciesKey, policyLinkRange, splitPolicyIds } from './keys.js';
import type { Replica } from './replica.js';

export class AccessReader {
  constructor(private readonly replica: Replica) {}

  /** Ids of the policies of `policyKind` that select the entity. */
  async policiesOf(kind: Kind, id: string, policyKind: Kind): Promise<string[]> {
    return splitPolicyIds(await this.replica.kv.get(entityPoliciesKey(kind, id, policyKind)));
  }

  /** Ids of the entities of `targetKind` the policy selects (the caller's own array). */
  async membersOf(policyKind: Kind, policyId: string, targetKind: Kind): Promise<string[]> {
    return (await this.replica.linkMembers(policyLinkRange(policyKind, policyId, targetKind))).slice();
  }

  /**
   * Entities' records and, for each, the ids of the policies of each of its `policyKinds` that
   * select it, read together: what memory does not hold comes from the store in one round trip.
   */
  async withPolicies(entities: { kind: Kind; id: string; policyKinds: Kind[] }[]): Promise<{ record: Entity | undefined; policies: string[][] }[]> {
    const keys = entities.flatMap((e) => e.policyKinds.map((policyKind) => entityPoliciesKey(e.kind, e.id, policyKind)));
    const { records, values } = await this.replica.getWithValues(entities, keys);
    let next = 0;
    return entities.map((e, i) => ({ record: records[i], policies: e.policyKinds.map(() => splitPolicyIds(values[next++])) }));
  }

  /**
   * Entities of `targetKind` reachable from an entity through the policies of `policyKind` that
   * select it (e.g. identity → services through Dial service policies). `accept` can narrow the
   * policies (by type).
   */
  async reachable(kind: Kind, id: string, policyKind: Kind, targetKind: Kind, accept?: (policy: Entity) => boolean): Promise<Set<string>> {
    return this.reachableThrough(await this.policiesOf(kind, id, policyKind), policyKind, targetKind, accept);
  }

  /** reachable(), from the ids of the policies that select the entity. */
  async reachableThrough(policyIds: string[], policyKind: Kind, targetKind: Kind, accept?: (policy: Entity) => boolean): Promise<Set<string>> {
    const out = new Set<string>();
    for (const policyId of policyIds) {
      if (accept) {
        const policy = await this.replica.get(policyKind, policyId);
        if (!policy || !accept(policy)) continue;
      }
      for (const member of await this.replica.linkMembers(policyLinkRange(policyKind, policyId, targetKind))) out.add(member);
    }
    return out;
  }

  /** The service policies (Dial or Bind) that grant an identity a service. */
  async grantingPolicies(identityId: string, serviceId: string, type?: 'Dial' | 'Bind'): Promise<Entity[]> {
    const ofIdentity = await this.policiesOf('identities', identityId, 'service-policies');
    // An identity no policy selects (an admin, typically: it presents every service's
    // permissions) is granted nothing, whatever selects the service.
    if (ofIdentity.length === 0) return [];
    return this.grantingOf(ofIdentity, await this.policiesOf('services', serviceId, 'service-policies'), type);
  }

  /** grantingPolicies(), from the ids of the service policies that select the identity and the
   * service. */
  async grantingOf(ofIdentity: string[], ofService: string[], type?: 'Dial' | 'Bind'): Promise<Entity[]> {
    if (ofIdentity.length === 0) return [];
    const mine = new Set(ofIdentity);
    const out: Entity[] = [];
    for (const policyId of ofService) {
      if (!mine.has(policyId)) continue;
      const policy = await this.replica.get('service-policies', policyId);
      if (policy && (type === undefined || policy.type === type)) out.push(policy);
    }
    return out;
  }

  /** Upstream's permissions array: "Bind" before "Dial", ["Invalid"] when neither. */
  async permissions(identityId: string, serviceId: string): Promise<string[]> {
    const types = new Set((await this.grantingPolicies(identityId, serviceId)).map((p) => String(p.type)));
    const out = ['Bind', 'Dial'].filter((t) => types.has(t));
    return out.length > 0 ? out : ['Invalid'];
  }
}
