// Every route of the two APIs, as one table per API in mount order: adding a route module = one
// line here. The same table is mounted on the router and described in the API's document.

import type Router from '@koa/router';
import { RESOURCES } from '../../domain/registry.js';
import type { NodeClient } from '../node-client.js';
import { AUTH_ROUTES } from './auth-routes.js';
import { CA_ROUTES } from './ca-routes.js';
import { CONFIG_ROUTES } from './config-routes.js';
import { CONTROLLER_SETTINGS_ROUTES } from './controller-settings-routes.js';
import { CURRENT_AUTHENTICATOR_ROUTES } from './current-authenticator-routes.js';
import { ENROLL_ROUTES } from './enroll-routes.js';
import { ENROLLMENT_ROUTES } from './enrollment-routes.js';
import { FABRIC_PATH, FABRIC_ROUTES } from './fabric-routes.js';
import { IDENTITY_ROUTES } from './identity-routes.js';
import { CLIENT_PATH, INFO_ROUTES, MANAGEMENT_PATH, SUMMARY_ROUTE } from './info-routes.js';
import { JWKS_ROUTE, NETWORK_ROUTES } from './network-routes.js';
import { OPS_ROUTES } from './ops-routes.js';
import { IDENTITY_MFA_ROUTES, MFA_ROUTES } from './mfa-routes.js';
import { CLIENT_DISCOVERY_ROUTES } from './client-discovery-routes.js';
import { CLUSTER_ROUTES } from './cluster-routes.js';
import { CLIENT_POSTURE_ROUTES } from './client-posture-routes.js';
import { POSTURE_CHECK_ROUTES } from './posture-check-routes.js';
import { POSTURE_DATA_ROUTES } from './posture-data-routes.js';
import { RELATION_ROUTES, ROLE_ATTRIBUTE_ROUTES } from './relation-routes.js';
import { resourceRoutes } from './resource-routes.js';
import { REVOCATION_ROUTES } from './revocation-routes.js';
import { ROUTER_ROUTES } from './router-routes.js';
import { mountRoutes, type Api, type BaseUrl } from './route-table.js';
import { SESSION_CERTIFICATE_ROUTES } from './session-certificate-routes.js';
import { TOKEN_ENROLL_ROUTE } from './token-enroll-route.js';
import { UNIMPLEMENTED_CLIENT_ROUTES } from './unimplemented-routes.js';

/** The management API. Hand-written routes come before the declared ones: where both match a
 * request, the first mounted answers. */
export const MANAGEMENT_API: Api = {
  id: 'edge-management',
  name: 'Weft Edge Management API',
  path: MANAGEMENT_PATH,
  resources: RESOURCES,
  routes: [
    ...INFO_ROUTES,
    SUMMARY_ROUTE,
    ...AUTH_ROUTES,
    ...MFA_ROUTES,
    ...IDENTITY_ROUTES,
    ...IDENTITY_MFA_ROUTES,
    ...RELATION_ROUTES,
    ...ROLE_ATTRIBUTE_ROUTES,
    ...POSTURE_CHECK_ROUTES,
    ...POSTURE_DATA_ROUTES,
    ...CONFIG_ROUTES,
    ...OPS_ROUTES,
    ...CLUSTER_ROUTES,
    ...CA_ROUTES,
    ...ENROLLMENT_ROUTES,
    ...CURRENT_AUTHENTICATOR_ROUTES,
    ...CONTROLLER_SETTINGS_ROUTES,
    ...REVOCATION_ROUTES,
    ...NETWORK_ROUTES,
    ...RESOURCES.flatMap((decl) => resourceRoutes(decl)),
    ...ROUTER_ROUTES,
  ],
};

/** The client API: hand-written routes only. */
export const CLIENT_API: Api = {
  id: 'edge-client',
  name: 'Weft Edge Client API',
  path: CLIENT_PATH,
  resources: [],
  routes: [
    ...INFO_ROUTES,
    SUMMARY_ROUTE,
    ...AUTH_ROUTES,
    ...MFA_ROUTES,
    ...CLIENT_POSTURE_ROUTES,
    ...CLIENT_DISCOVERY_ROUTES,
    ...NETWORK_ROUTES,
    JWKS_ROUTE,
    ...ENROLL_ROUTES,
    TOKEN_ENROLL_ROUTE,
    ...CURRENT_AUTHENTICATOR_ROUTES,
    ...SESSION_CERTIFICATE_ROUTES,
    ...UNIMPLEMENTED_CLIENT_ROUTES,
  ],
};

/** The `/fabric/v1` subset consoles read (no document is served for it). */
export const FABRIC_API: Api = {
  id: 'fabric',
  name: 'Weft Fabric API',
  path: FABRIC_PATH,
  resources: [],
  routes: FABRIC_ROUTES,
};

/** Mounts an API's table on its router (whose prefix is the API's path). */
export function mountApi(router: Router, api: Api, node: NodeClient, baseUrl: BaseUrl): void {
  mountRoutes(router, api.routes, { node, baseUrl, api });
}
