// Authentication policies: which primary and secondary methods an identity may use.
// The `default` policy is seeded at bootstrap; every identity without one refers to it.
// Nested required properties and minimums are checked by auth-policy-rules (patch merges).

import { ApiError } from '../../errors.js';
import type { Entity } from '../entity.js';
import type { FieldSpec, ResourceDecl } from '../resource.js';

const bool: FieldSpec = { type: 'boolean', nullable: true };
const int: FieldSpec = { type: 'integer', nullable: true };

/** The shape of `primary` (every leaf is required on create and replace). */
export const PRIMARY_PROPERTIES: Record<string, FieldSpec> = {
  cert: { type: 'object', nullable: true, properties: { allowed: bool, allowExpiredCerts: bool } },
  updb: {
    type: 'object',
    nullable: true,
    properties: {
      allowed: bool,
      minPasswordLength: int,
      requireSpecialChar: bool,
      requireNumberChar: bool,
      requireMixedCase: bool,
      maxAttempts: int,
      lockoutDurationMinutes: int,
    },
  },
  extJwt: {
    type: 'object',
    nullable: true,
    properties: { allowed: bool, allowedSigners: { type: 'stringList', nullable: true, maxLength: 1024 } },
  },
};

/** The shape of `secondary`: `requireTotp` is required; a null signer requires none. */
export const SECONDARY_PROPERTIES: Record<string, FieldSpec> = {
  requireTotp: bool,
  requireExtJwtSigner: { type: 'string', nullable: true },
};

export const authPolicies: ResourceDecl<'auth-policies'> = {
  kind: 'auth-policies',
  entity: 'auth-policy',
  actor: 'catalog',
  ownActor: 'auth-policy-catalog',
  description: 'Authentication policies',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  guardDelete: refuseDefaultPolicyDelete,
  columns: ['id', 'name'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    primary: { type: 'object', required: true, properties: PRIMARY_PROPERTIES },
    secondary: { type: 'object', required: true, properties: SECONDARY_PROPERTIES },
    /** Every signer the policy names (allowedSigners and requireExtJwtSigner): the foreign key
     * that refuses deleting a signer in use (409). Derived, never presented. */
    extJwtSignerIds: { type: 'stringList', write: 'server', secret: true, default: [], ref: 'external-jwt-signers' },
  },
};

export const DEFAULT_AUTH_POLICY = {
  id: 'default',
  name: 'Default',
  primary: {
    cert: { allowed: true, allowExpiredCerts: true },
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
};

/** Every identity without a policy of its own uses `default`: it is always referenced. */
function refuseDefaultPolicyDelete(record: Entity): void {
  if (record.id === DEFAULT_AUTH_POLICY.id) {
    throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'id', value: record.id, reason: 'the default auth policy cannot be deleted' });
  }
}
