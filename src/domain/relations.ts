// Related lists (`/<parent>/{id}/<child>`): how each one is derived. The gateway builds its
// routes from this table and the query handler resolves them. Pure data.

export type RelationVia =
  /** Children whose indexed `field` equals the parent id. */
  | { index: string }
  /** The entities a policy's role list selects. */
  | { members: true }
  /** The policies of the child kind that select the parent entity. */
  | { policies: true }
  /** Entities reached from the parent through the policies of `policyKind`. */
  | { through: string };

export interface Relation {
  parent: string;
  child: string;
  via: RelationVia;
}

export const RELATIONS: readonly Relation[] = [
  { parent: 'identities', child: 'authenticators', via: { index: 'identityId' } },
  { parent: 'identities', child: 'api-sessions', via: { index: 'identityId' } },
  { parent: 'identities', child: 'enrollments', via: { index: 'identityId' } },
  { parent: 'identities', child: 'service-policies', via: { policies: true } },
  { parent: 'identities', child: 'edge-router-policies', via: { policies: true } },
  { parent: 'identities', child: 'services', via: { through: 'service-policies' } },
  { parent: 'identities', child: 'edge-routers', via: { through: 'edge-router-policies' } },
  { parent: 'services', child: 'service-policies', via: { policies: true } },
  { parent: 'services', child: 'service-edge-router-policies', via: { policies: true } },
  { parent: 'services', child: 'identities', via: { through: 'service-policies' } },
  { parent: 'services', child: 'edge-routers', via: { through: 'service-edge-router-policies' } },
  { parent: 'services', child: 'terminators', via: { index: 'service' } },
  { parent: 'edge-routers', child: 'edge-router-policies', via: { policies: true } },
  { parent: 'edge-routers', child: 'service-edge-router-policies', via: { policies: true } },
  { parent: 'edge-routers', child: 'identities', via: { through: 'edge-router-policies' } },
  { parent: 'edge-routers', child: 'services', via: { through: 'service-edge-router-policies' } },
  { parent: 'edge-router-policies', child: 'identities', via: { members: true } },
  { parent: 'edge-router-policies', child: 'edge-routers', via: { members: true } },
  { parent: 'service-edge-router-policies', child: 'services', via: { members: true } },
  { parent: 'service-edge-router-policies', child: 'edge-routers', via: { members: true } },
  { parent: 'service-policies', child: 'identities', via: { members: true } },
  { parent: 'service-policies', child: 'services', via: { members: true } },
  { parent: 'service-policies', child: 'posture-checks', via: { members: true } },
];

export function findRelation(parent: string, child: string): Relation | undefined {
  return RELATIONS.find((r) => r.parent === parent && r.child === child);
}
