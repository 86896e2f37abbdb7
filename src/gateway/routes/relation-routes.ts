// Related lists (`/<parent>/{id}/<child>`) and role-attribute lists, derived from the
// relation table and the selectable resources. Admin only, as upstream.

import { RELATIONS } from '../../domain/relations.js';
import { kindOf, RESOURCES } from '../../domain/registry.js';
import type { ResourceDecl } from '../../domain/resource.js';
import { sendList } from '../list-answer.js';
import { listParams, viewer } from './resource-routes.js';
import type { HandRoute } from './route-table.js';

const LIST_QUERY = ['filter', 'limit', 'offset'] as const;

/** Upstream's operations of the related lists it has; the others are named the same way. */
const UPSTREAM: Record<string, readonly [operationId: string, summary: string]> = {
  'identities/authenticators': ['getIdentityAuthenticators', 'Retrieve the current authenticators of a specific identity'],
  'identities/enrollments': ['getIdentityEnrollments', 'Retrieve the current enrollments of a specific identity'],
  'identities/service-policies': ['listIdentityServicePolicies', 'List the service policies that affect an identity'],
  'identities/edge-router-policies': ['listIdentitysEdgeRouterPolicies', 'List the edge router policies that affect an identity'],
  'identities/services': ['listIdentityServices', 'List accessible services'],
  'identities/edge-routers': ['listIdentityEdgeRouters', 'List accessible edge-routers'],
  'services/service-policies': ['listServiceServicePolicies', 'List service policies that affect a specific service'],
  'services/service-edge-router-policies': ['listServiceServiceEdgeRouterPolicies', 'List service edge router policies that affect a specific service'],
  'services/identities': ['listServiceIdentities', 'List identities with access'],
  'services/edge-routers': ['listServiceEdgeRouters', 'List accessible edge-routers'],
  'services/terminators': ['listServiceTerminators', 'List of terminators assigned to a service'],
  'edge-routers/edge-router-policies': ['listEdgeRouterEdgeRouterPolicies', 'List the edge router policies that affect an edge router'],
  'edge-routers/service-edge-router-policies': ['listEdgeRouterServiceEdgeRouterPolicies', 'List the service policies that affect an edge router'],
  'edge-routers/identities': ['listEdgeRouterIdentities', 'List associated identities'],
  'edge-routers/services': ['listEdgeRouterServices', 'List associated services'],
  'edge-router-policies/identities': ['listEdgeRouterPolicyIdentities', 'List identities an edge router policy affects'],
  'edge-router-policies/edge-routers': ['listEdgeRouterPolicyEdgeRouters', 'List edge routers a policy affects'],
  'service-edge-router-policies/services': ['listServiceEdgeRouterPolicyServices', 'List the services that a service edge router policy applies to'],
  'service-edge-router-policies/edge-routers': ['listServiceEdgeRouterPolicyEdgeRouters', 'List the edge routers that a service edge router policy applies to'],
  'service-policies/identities': ['listServicePolicyIdentities', 'List identities a service policy affects'],
  'service-policies/services': ['listServicePolicyServices', 'List services a service policy affects'],
  'service-policies/posture-checks': ['listServicePolicyPostureChecks', 'List posture check a service policy includes'],
};

const pascal = (kebab: string) => kebab.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

export const RELATION_ROUTES: readonly HandRoute[] = RELATIONS.map(({ parent, child }): HandRoute => {
  const parentKind = kindOf(parent);
  const childKind = kindOf(child);
  const [operationId, summary] = UPSTREAM[`${parent}/${child}`] ?? [`list${pascal(parent)}${pascal(child)}`, `List the ${child} of one of the ${parent}`];
  return {
    method: 'get', path: `/${parent}/:id/${child}`, access: 'admin', operationId, summary, query: LIST_QUERY,
    handler: (ctx, { node }) =>
      sendList(ctx, node, { op: 'related', parent: { kind: parentKind, id: ctx.params.id }, kind: childKind, params: listParams(ctx), viewer: viewer(ctx) }),
  };
});

/** `/identity-role-attributes`, `/service-role-attributes`, ... for every selectable kind. */
export const ROLE_ATTRIBUTE_ROUTES: readonly HandRoute[] = RESOURCES.filter((r) => r.selectable).map((decl: ResourceDecl): HandRoute => {
  const kind = kindOf(decl.kind);
  return {
    method: 'get', path: `/${decl.entity}-role-attributes`, access: 'admin',
    operationId: `list${pascal(decl.entity)}RoleAttributes`, summary: `List role attributes in use by ${decl.kind.replace(/-/g, ' ')}`, query: LIST_QUERY,
    handler: (ctx, { node }) => sendList(ctx, node, { op: 'roleAttributes', kind, params: listParams(ctx) }),
  };
});
