// Kind-specific rules applied to validated values before a write is proposed: mappings and
// upstream quirks the declaration alone cannot express. Pure.

import { ApiError, fieldError } from '../errors.js';
import { isBuiltinConfigType } from './builtin-config-types.js';
import { checkRoleAttributes, normaliseRoles } from './policy.js';
import type { Entity } from './commands.js';
import { refuseRouterIdentityRename } from './router-rules.js';
import type { WriteMode } from './validate.js';

export type PrepareWrite = (values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode) => void;

/** Identities: `type` is accepted but stored as typeId (always Default on create; Router is
 * never reachable through the API); an empty authPolicyId means `default`. */
function prepareIdentity(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
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
  prepareSelectable(values);
}

/** Any entity that policies select: its role attributes may not look like selectors. */
function prepareSelectable(values: Record<string, unknown>): void {
  if (values.roleAttributes !== undefined) checkRoleAttributes('roleAttributes', values.roleAttributes as string[]);
}

/** Policies: role lists are validated and stored sorted; `@id` existence is checked in apply. */
function preparePolicy(values: Record<string, unknown>, old: Entity | undefined): void {
  for (const field of ['identityRoles', 'serviceRoles', 'edgeRouterRoles', 'postureCheckRoles']) {
    if (Array.isArray(values[field])) values[field] = normaliseRoles(field, values[field] as string[]);
  }
  if (old?.isSystem === true) throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { code: 'UNHANDLED', message: 'cannot update a system policy' });
}

/** Built-in config types keep upstream's name and schema: tunnelers and ZAC rely on them. */
function prepareConfigType(_values: Record<string, unknown>, old: Entity | undefined): void {
  if (old && isBuiltinConfigType(old.id)) {
    throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { code: 'UNHANDLED', message: `cannot update the built-in config type ${String(old.name)}` });
  }
}

export const PREPARE: Record<string, PrepareWrite> = {
  'config-types': prepareConfigType,
  identities: prepareIdentity,
  services: prepareSelectable,
  'edge-routers': prepareSelectable,
  'posture-checks': prepareSelectable,
  'edge-router-policies': preparePolicy,
  'service-edge-router-policies': preparePolicy,
  'service-policies': preparePolicy,
};
