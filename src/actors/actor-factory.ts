// Which actor serves which key: a declaration names its own actor (`ownActor`), and this table
// maps each name to its class. Entity families are keyed by entity id; the catalog by kind.

import { declarationOf, kindOf } from '../domain/registry.js';
import type { ActorName, ResourceDecl } from '../domain/resource.js';
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

/** Each actor a declaration may name (`ownActor`), by name; the compiler checks that every name
 * has one. `key` is the actor's key: the entity id, or the kind for a catalog. */
const OWN_ACTORS: Record<ActorName, (deps: ActorDeps, key: string) => Actor> = {
  'identity-actor': (deps, id) => new IdentityActor(id, deps),
  'api-session-certificate-catalog': (deps) => new ApiSessionCertificateCatalog(deps),
  'auth-policy-catalog': (deps) => new AuthPolicyCatalog(deps),
  'authenticator-catalog': (deps) => new AuthenticatorCatalog(deps),
  'ca-catalog': (deps) => new CaCatalog(deps),
  'config-catalog': (deps) => new ConfigCatalog(deps),
  'config-type-catalog': (deps) => new ConfigTypeCatalog(deps),
  'edge-router-catalog': (deps) => new EdgeRouterCatalog(deps),
  'enrollment-catalog': (deps) => new EnrollmentCatalog(deps),
  'external-jwt-signer-catalog': (deps) => new ExternalJwtSignerCatalog(deps),
  'identity-service-config-catalog': (deps) => new IdentityServiceConfigCatalog(deps),
  'posture-check-catalog': (deps) => new PostureCheckCatalog(deps),
  'revocation-catalog': (deps) => new RevocationCatalog(deps),
  'router-catalog': (deps) => new RouterCatalog('routers', 'trott', deps),
  'terminator-catalog': (deps) => new TerminatorCatalog(deps),
};

/** The actor of one entity of an entity-family kind (`identities` → the identity actor). */
export function createEntityActor(decl: ResourceDecl, id: string, deps: ActorDeps): Actor {
  if (decl.actor !== 'entity') throw new Error(`${decl.kind} is served by its catalog, not per entity`);
  return decl.ownActor ? OWN_ACTORS[decl.ownActor](deps, id) : new CatalogActor(kindOf(decl.kind), deps.writer, id);
}

/** The catalog actor for a resource kind. */
export function createCatalogActor(kind: string, deps: ActorDeps): Actor {
  const decl = declarationOf(kind);
  return decl.ownActor ? OWN_ACTORS[decl.ownActor](deps, kind) : new CatalogActor(kindOf(kind), deps.writer);
}
