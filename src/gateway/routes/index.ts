// Every route module of the two APIs, in one list: adding a module = one line here.

import type Router from '@koa/router';
import { RESOURCES } from '../../domain/registry.js';
import type { NodeClient } from '../node-client.js';
import { addAuthRoutes } from './auth-routes.js';
import { addCaRoutes } from './ca-routes.js';
import { addConfigRoutes } from './config-routes.js';
import { addControllerSettingsRoutes } from './controller-settings-routes.js';
import { addCurrentAuthenticatorRoutes } from './current-authenticator-routes.js';
import { addEnrollRoutes } from './enroll-routes.js';
import { addEnrollmentRoutes } from './enrollment-routes.js';
import { addIdentityRoutes } from './identity-routes.js';
import { addInfoRoutes, type BaseUrl } from './info-routes.js';
import { addNetworkRoutes } from './network-routes.js';
import { addOpsRoutes } from './ops-routes.js';
import { addIdentityMfaRoutes, addMfaRoutes } from './mfa-routes.js';
import { addClientDiscoveryRoutes } from './client-discovery-routes.js';
import { addClusterRoutes } from './cluster-routes.js';
import { addClientPostureRoutes } from './client-posture-routes.js';
import { addPostureCheckRoutes } from './posture-check-routes.js';
import { addPostureDataRoutes } from './posture-data-routes.js';
import { addRelationRoutes, addRoleAttributeRoutes } from './relation-routes.js';
import { addResourceRoutes } from './resource-routes.js';
import { addRevocationRoutes } from './revocation-routes.js';
import { addRouterRoutes } from './router-routes.js';
import { addSessionCertificateRoutes } from './session-certificate-routes.js';
import { addTokenEnrollRoute } from './token-enroll-route.js';
import { addUnimplementedClientRoutes } from './unimplemented-routes.js';

export function addManagementRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  addInfoRoutes(router, node, baseUrl);
  addAuthRoutes(router, node);
  addMfaRoutes(router, node);
  addIdentityRoutes(router, node);
  addIdentityMfaRoutes(router, node);
  addRelationRoutes(router, node);
  addRoleAttributeRoutes(router, node);
  addPostureCheckRoutes(router, node);
  addPostureDataRoutes(router, node);
  addConfigRoutes(router, node);
  addOpsRoutes(router, node);
  addClusterRoutes(router, node);
  addCaRoutes(router, node);
  addEnrollmentRoutes(router, node);
  addCurrentAuthenticatorRoutes(router, node);
  addControllerSettingsRoutes(router, node);
  addRevocationRoutes(router, node);
  addNetworkRoutes(router, node, { jwks: false });
  for (const decl of RESOURCES) addResourceRoutes(router, node, decl);
  addRouterRoutes(router, node);
}

export function addClientRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  addInfoRoutes(router, node, baseUrl);
  addAuthRoutes(router, node);
  addMfaRoutes(router, node);
  addClientPostureRoutes(router, node);
  addClientDiscoveryRoutes(router, node, baseUrl);
  addNetworkRoutes(router, node, { jwks: true });
  addEnrollRoutes(router, node);
  addTokenEnrollRoute(router, node);
  addCurrentAuthenticatorRoutes(router, node);
  addSessionCertificateRoutes(router, node);
  addUnimplementedClientRoutes(router);
}
