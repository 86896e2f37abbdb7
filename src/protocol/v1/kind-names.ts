// The resource kinds a bus message may name, as the wire contract has them. The protocol imports
// no domain code, so the list is written here; test/unit/protocol/kind-names.test.ts checks at
// compile time and at run time that it is exactly the kinds of domain/registry.ts.

import { invalidMessage, type Fields } from './message-fields.js';

export const KIND_NAMES = [
  'identities',
  'identity-types',
  'api-sessions',
  'authenticators',
  'auth-policies',
  'config-types',
  'configs',
  'identity-service-configs',
  'services',
  'edge-routers',
  'routers',
  'edge-router-policies',
  'service-edge-router-policies',
  'service-policies',
  'posture-checks',
  'sessions',
  'cas',
  'external-jwt-signers',
  'enrollments',
  'mfas',
  'terminators',
  'controller-settings',
  'revocations',
  'api-session-certificates',
] as const;

/** A resource kind on the wire. */
export type KindName = (typeof KIND_NAMES)[number];

const KINDS: ReadonlySet<string> = new Set(KIND_NAMES);

export function isKindName(value: unknown): value is KindName {
  return typeof value === 'string' && KINDS.has(value);
}

/** The message's `field` as a kind, or 400 INVALID_MESSAGE. */
export function kindName(m: Fields, field: string): KindName {
  const value = m[field];
  if (!isKindName(value)) throw invalidMessage(field, value, `${field} must be a resource kind`);
  return value;
}
