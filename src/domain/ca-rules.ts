// Write rules of third-party CAs beyond the declaration: identity roles are plain role
// attributes, an empty name format means the default, and the external-id claim must be usable
// (BEHAVIOR.md §5.3, §4.8). Pure; throws COULD_NOT_VALIDATE with a field path.

import { fieldError } from '../errors.js';
import type { Entity } from './commands.js';
import { checkRoleAttributes } from './policy.js';
import { DEFAULT_IDENTITY_NAME_FORMAT } from './resources/cas.js';
import type { WriteMode } from './validate.js';

/** How a CA reads an identity's external id from a client certificate. */
export interface ExternalIdClaim {
  location: 'COMMON_NAME' | 'SAN_URI' | 'SAN_EMAIL';
  matcher: 'ALL' | 'PREFIX' | 'SUFFIX' | 'SCHEME';
  matcherCriteria: string;
  parser: 'NONE' | 'SPLIT';
  parserCriteria: string;
  index: number;
}

/** Matchers that make sense per location: URIs match by scheme, strings by prefix or suffix. */
const MATCHERS_BY_LOCATION: Record<ExternalIdClaim['location'], readonly string[]> = {
  COMMON_NAME: ['ALL', 'PREFIX', 'SUFFIX'],
  SAN_EMAIL: ['ALL', 'PREFIX', 'SUFFIX'],
  SAN_URI: ['ALL', 'SCHEME'],
};

/** Normalises validated CA values in place (create, replace or patch over `old`). */
export function prepareCaValues(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  if (values.identityRoles !== undefined) checkRoleAttributes('identityRoles', values.identityRoles as string[]);
  if ('identityNameFormat' in values) {
    const format = values.identityNameFormat;
    if (format === null || (typeof format === 'string' && format.trim() === '')) values.identityNameFormat = DEFAULT_IDENTITY_NAME_FORMAT;
  }
  if (values.externalIdClaim !== undefined) {
    const base = mode === 'patch' ? (old?.externalIdClaim as Record<string, unknown> | null | undefined) : undefined;
    values.externalIdClaim = normaliseExternalIdClaim(values.externalIdClaim as Record<string, unknown> | null, base ?? null);
  }
}

/** Null clears the claim; on patch the given properties override the stored claim's. */
export function normaliseExternalIdClaim(input: Record<string, unknown> | null, base: Record<string, unknown> | null): ExternalIdClaim | null {
  if (input === null) return null;
  const claim = { ...(base ?? {}), ...input };
  const path = (name: string) => `externalIdClaim.${name}`;
  for (const name of ['location', 'matcher', 'parser']) {
    if (claim[name] === null || claim[name] === undefined) throw fieldError(path(name), null, `${path(name)} is required`);
  }
  const location = claim.location as ExternalIdClaim['location'];
  const matcher = claim.matcher as ExternalIdClaim['matcher'];
  const parser = claim.parser as ExternalIdClaim['parser'];
  const matcherCriteria = String(claim.matcherCriteria ?? '');
  const parserCriteria = String(claim.parserCriteria ?? '');
  if (!MATCHERS_BY_LOCATION[location].includes(matcher)) {
    throw fieldError(path('matcher'), matcher, `unsupported matcher [${matcher}] for location [${location}]`);
  }
  if (matcher !== 'ALL' && matcherCriteria === '') {
    throw fieldError(path('matcherCriteria'), matcherCriteria, `invalid criteria [] for matcher [${matcher}]`);
  }
  if (parser === 'SPLIT' && parserCriteria === '') {
    throw fieldError(path('parserCriteria'), parserCriteria, `invalid criteria [] for parser [${parser}]`);
  }
  return { location, matcher, matcherCriteria, parser, parserCriteria, index: Number(claim.index ?? 0) };
}
