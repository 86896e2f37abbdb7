// Authentication policies: which primary and secondary methods an identity may use.
// The `default` policy is seeded at bootstrap; every identity without one refers to it.

import type { ResourceDecl } from '../resource.js';

export const authPolicies: ResourceDecl = {
  kind: 'auth-policies',
  entity: 'auth-policy',
  actor: 'catalog',
  description: 'Authentication policies',
  ops: { list: 'admin', get: 'admin' },
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true },
    primary: { type: 'object', required: true },
    secondary: { type: 'object', required: true },
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
