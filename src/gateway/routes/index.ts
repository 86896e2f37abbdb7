// Every route module of the two APIs, in one list: adding a module = one line here.

import type Router from '@koa/router';
import { RESOURCES } from '../../domain/registry.js';
import type { NodeClient } from '../node-client.js';
import { addAuthRoutes } from './auth-routes.js';
import { addConfigRoutes } from './config-routes.js';
import { addIdentityRoutes } from './identity-routes.js';
import { addInfoRoutes, type BaseUrl } from './info-routes.js';
import { addPostureCheckRoutes } from './posture-check-routes.js';
import { addRelationRoutes, addRoleAttributeRoutes } from './relation-routes.js';
import { addResourceRoutes } from './resource-routes.js';
import { addRouterRoutes } from './router-routes.js';

export function addManagementRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  addInfoRoutes(router, node, baseUrl);
  addAuthRoutes(router, node);
  addIdentityRoutes(router, node);
  addRelationRoutes(router, node);
  addRoleAttributeRoutes(router, node);
  addPostureCheckRoutes(router, node);
  addConfigRoutes(router, node);
  for (const decl of RESOURCES) addResourceRoutes(router, node, decl);
  addRouterRoutes(router, node);
}

export function addClientRoutes(router: Router, node: NodeClient, baseUrl: BaseUrl): void {
  addInfoRoutes(router, node, baseUrl);
  addAuthRoutes(router, node);
}
