// Which actor serves which key: one place that maps an actor family and key to its behaviour.
// Entity families are keyed by entity id; the catalog family by resource kind.

import { kindOf } from '../domain/registry.js';
import type { ActorDeps } from './actor-deps.js';
import type { Actor } from './actor-host.js';
import { ApiSessionCertificateCatalog } from './api-session-certificate-catalog.js';
import { AuthenticatorCatalog } from './authenticator-catalog.js';
import { AuthPolicyCatalog } from './auth-policy-catalog.js';
import { CaCatalog } from './ca-catalog.js';
import { CatalogActor } from './catalog-actor.js';
import { ConfigCatalog } from './config-catalog.js';
import { ConfigTypeCatalog } from './config-type-catalog.js';
import { EnrollmentCatalog } from './credentials/enrollment-catalog.js';
import { EdgeRouterCatalog } from './edge-router-catalog.js';
import { ExternalJwtSignerCatalog } from './external-jwt-signer-catalog.js';
import { IdentityActor } from './identity-actor.js';
import { IdentityServiceConfigCatalog } from './identity-service-config-catalog.js';
import { PostureCheckCatalog } from './posture-check-catalog.js';
import { RevocationCatalog } from './revocation-catalog.js';
import { RouterCatalog } from './router-catalog.js';
import { TerminatorCatalog } from './terminator-catalog.js';

export type { ActorDeps };

/** The actor for an entity-family key (`identity` → id). */
export function createEntityActor(family: string, id: string, deps: ActorDeps): Actor {
  switch (family) {
    case 'identity':
      return new IdentityActor(id, deps);
    case 'service':
      return new CatalogActor('services', deps.writer, id);
    default:
      throw new Error(`no actor for family ${family}`);
  }
}

/** The catalog actor for a resource kind. */
export function createCatalogActor(kind: string, deps: ActorDeps): Actor {
  switch (kind) {
    case 'authenticators':
      return new AuthenticatorCatalog(deps);
    case 'config-types':
      return new ConfigTypeCatalog(deps);
    case 'configs':
      return new ConfigCatalog(deps);
    case 'identity-service-configs':
      return new IdentityServiceConfigCatalog(deps);
    case 'edge-routers':
      return new EdgeRouterCatalog(deps);
    case 'routers':
      return new RouterCatalog('routers', 'trott', deps);
    case 'posture-checks':
      return new PostureCheckCatalog(deps);
    case 'enrollments':
      return new EnrollmentCatalog(deps);
    case 'cas':
      return new CaCatalog(deps);
    case 'external-jwt-signers':
      return new ExternalJwtSignerCatalog(deps);
    case 'auth-policies':
      return new AuthPolicyCatalog(deps);
    case 'terminators':
      return new TerminatorCatalog(deps);
    case 'api-session-certificates':
      return new ApiSessionCertificateCatalog(deps);
    case 'revocations':
      return new RevocationCatalog(deps);
    default:
      return new CatalogActor(kindOf(kind), deps.writer);
  }
}
