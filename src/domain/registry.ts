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

export const RESOURCES = [
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
] as const satisfies readonly ResourceDecl[];

/** A declared resource kind (the URL segment and storage kind), e.g. `'identities'`. */
export type Kind = (typeof RESOURCES)[number]['kind'];

const BY_KIND = new Map<string, ResourceDecl>(RESOURCES.map((r) => [r.kind, r]));

/** The declaration of a kind. */
export function resourceOf(kind: Kind): ResourceDecl {
  return declarationOf(kind);
}

/** The declaration of a kind named at run time (a command, a stored key, a URL, another
 * declaration's reference); throws on a name no declaration has. */
export function declarationOf(name: string): ResourceDecl {
  const decl = BY_KIND.get(name);
  if (!decl) throw new Error(`unknown resource kind ${name}`);
  return decl;
}

/** The declared kind of a run-time name; throws on a name no declaration has. */
export function kindOf(name: string): Kind {
  return declarationOf(name).kind as Kind;
}

export function isKind(name: string): name is Kind {
  return BY_KIND.has(name);
}
