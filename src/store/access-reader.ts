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
   * Entities of `targetKind` reachable from an entity through the policies of `policyKind` that
   * select it (e.g. identity → services through Dial service policies). `accept` can narrow the
   * policies (by type).
   */
  async reachable(kind: Kind, id: string, policyKind: Kind, targetKind: Kind, accept?: (policy: Entity) => boolean): Promise<Set<string>> {
    const out = new Set<string>();
    for (const policyId of await this.policiesOf(kind, id, policyKind)) {
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
    const mine = new Set(ofIdentity);
    const out: Entity[] = [];
    for (const policyId of await this.policiesOf('services', serviceId, 'service-policies')) {
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
