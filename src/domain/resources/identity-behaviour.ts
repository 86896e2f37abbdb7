// The identity kind's write and delete rules (hooks of its declaration): `type` mapped to
// typeId, router identities and the default admin protected. Pure.

import { ApiError, fieldError } from '../../errors.js';
import type { Entity } from '../entity.js';
import type { WriteMode } from '../resource.js';
import { ROUTER_IDENTITY_TYPE, refuseRouterIdentityRename } from '../router-rules.js';

/** `type` is accepted but stored as typeId (always Default on create; Router is never reachable
 * through the API); an empty authPolicyId means `default`. */
export function prepareIdentity(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  const requested = values.type;
  delete values.type;
  delete values.enrollment;
  if (mode === 'create') {
    values.typeId = 'Default';
    values.isDefaultAdmin = false;
  } else if (requested !== undefined) {
    if (requested === 'Router' && old?.typeId !== 'Router') throw fieldError('type', requested, 'may not change type to router');
    if (requested !== 'Router' && old?.typeId === 'Router') throw fieldError('type', requested, 'may not change type from router');
  }
  refuseRouterIdentityRename(values, old);
  if ('authPolicyId' in values && (values.authPolicyId === null || values.authPolicyId === '')) {
    values.authPolicyId = 'default';
  }
}

/** A router's identity goes with its router; the default admin stays. */
export function guardIdentityDelete(record: Entity): void {
  if (record.typeId === ROUTER_IDENTITY_TYPE) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the identity of a tunneler-enabled edge router' });
  }
  if (record.isDefaultAdmin === true) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the default admin' });
  }
}
