// The resource registry: every declared kind, by URL segment. Adding a resource = one
// declaration file + one line here.

import type { ResourceDecl } from './resource.js';
import { apiSessionCertificates } from './resources/api-session-certificates.js';
import { apiSessions } from './resources/api-sessions.js';
import { authPolicies } from './resources/auth-policies.js';
import { authenticators } from './resources/authenticators.js';
import { identities } from './resources/identities.js';
import { identityTypes } from './resources/identity-types.js';
import { identityServiceConfigs } from './resources/identity-service-configs.js';
import { mfas } from './resources/mfas.js';
import { cas } from './resources/cas.js';
import { configTypes } from './resources/config-types.js';
import { configs } from './resources/configs.js';
import { controllerSettings } from './resources/controller-settings.js';
import { edgeRouters } from './resources/edge-routers.js';
import { enrollments } from './resources/enrollments.js';
import { externalJwtSigners } from './resources/external-jwt-signers.js';
import { edgeRouterPolicies, serviceEdgeRouterPolicies, servicePolicies } from './resources/policies.js';
import { postureChecks } from './resources/posture-checks.js';
import { revocations } from './resources/revocations.js';
import { routers } from './resources/routers.js';
import { services } from './resources/services.js';
import { sessions } from './resources/sessions.js';
import { terminators } from './resources/terminators.js';

export const RESOURCES: readonly ResourceDecl[] = [
  identities,
  identityTypes,
  apiSessions,
  authenticators,
  authPolicies,
  configTypes,
  configs,
  identityServiceConfigs,
  services,
  edgeRouters,
  routers,
  edgeRouterPolicies,
  serviceEdgeRouterPolicies,
  servicePolicies,
  postureChecks,
  sessions,
  cas,
  externalJwtSigners,
  enrollments,
  mfas,
  terminators,
  controllerSettings,
  revocations,
  apiSessionCertificates,
];

const BY_KIND = new Map(RESOURCES.map((r) => [r.kind, r]));

export function resourceOf(kind: string): ResourceDecl {
  const decl = BY_KIND.get(kind);
  if (!decl) throw new Error(`unknown resource kind ${kind}`);
  return decl;
}

export function hasResource(kind: string): boolean {
  return BY_KIND.has(kind);
}
