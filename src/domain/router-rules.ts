// Rules of routers' system entities (BEHAVIOR.md §2.6): the router identity and the system edge
// router policy of a tunneler-enabled edge router. Pure.

import { fieldError } from '../errors.js';
import type { Entity } from './entity.js';

/** The identity type of a tunneler-enabled router's identity. */
export const ROUTER_IDENTITY_TYPE = 'Router';

/** The name of a tunneler-enabled router's system edge router policy. */
export function routerPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/** A router identity takes its name from the router: PUT/PATCH may not change it. */
export function refuseRouterIdentityRename(values: Record<string, unknown>, old: Entity | undefined): void {
  if (old?.typeId !== ROUTER_IDENTITY_TYPE || values.name === undefined || values.name === old.name) return;
  throw fieldError('name', values.name, 'may not change name of router identities');
}
