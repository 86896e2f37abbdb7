// The policy kinds' write rule (a hook of their declarations): role lists validated and stored
// sorted; system policies are read-only. `@id` existence is checked in apply. Pure.

import { ApiError } from '../../errors.js';
import type { Entity } from '../entity.js';
import { normaliseRoles } from '../policy.js';

const ROLE_FIELDS = ['identityRoles', 'serviceRoles', 'edgeRouterRoles', 'postureCheckRoles'];

export function preparePolicy(values: Record<string, unknown>, old: Entity | undefined): void {
  for (const field of ROLE_FIELDS) {
    if (Array.isArray(values[field])) values[field] = normaliseRoles(field, values[field] as string[]);
  }
  if (old?.isSystem === true) throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { code: 'UNHANDLED', message: 'cannot update a system policy' });
}
