// Write rules of external JWT signers beyond the declaration (BEHAVIOR.md §4.7): blanks are
// absent, exactly one of certPem and jwksEndpoint, JWKS only over https (or http on loopback),
// and upstream's defaults for the optional settings. Pure; throws COULD_NOT_VALIDATE.

import { fieldError } from '../errors.js';
import type { Entity } from './commands.js';
import { DEFAULT_CLAIMS_PROPERTY } from './resources/external-jwt-signers.js';
import type { WriteMode } from './validate.js';

/** Optional strings where an empty value means "not set". */
const BLANK_IS_NULL = ['certPem', 'jwksEndpoint', 'kid', 'externalAuthUrl', 'clientId', 'enrollAuthPolicyId'];

/** What a null (or blank) optional setting is stored as. */
const NULL_MEANS: Record<string, unknown> = {
  claimsProperty: DEFAULT_CLAIMS_PROPERTY,
  useExternalId: false,
  scopes: [],
  targetToken: 'ACCESS',
  enrollToCertEnabled: false,
  enrollToTokenEnabled: false,
  enrollNameClaimsSelector: '',
  enrollAttributeClaimsSelector: '',
};

/** Normalises validated signer values in place; `old` is the stored signer on replace / patch. */
export function prepareSignerValues(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  for (const name of BLANK_IS_NULL) {
    if (typeof values[name] === 'string' && (values[name] as string).trim() === '') values[name] = null;
  }
  if (typeof values.claimsProperty === 'string' && values.claimsProperty.trim() === '') values.claimsProperty = null;
  for (const [name, fallback] of Object.entries(NULL_MEANS)) {
    if (values[name] === null) values[name] = structuredClone(fallback);
  }
  for (const name of ['issuer', 'audience']) {
    if (typeof values[name] === 'string' && (values[name] as string).trim() === '') throw fieldError(name, values[name], `${name} is required`);
  }
  const merged = mode === 'patch' ? { ...old, ...values } : values;
  const certPem = merged.certPem ?? null;
  const jwksEndpoint = merged.jwksEndpoint ?? null;
  if (certPem === null && jwksEndpoint === null) throw fieldError('certPem', null, 'jwksEndpoint or certPem is required');
  if (certPem !== null && jwksEndpoint !== null) {
    throw fieldError('jwksEndpoint', jwksEndpoint, 'only one of jwksEndpoint or certPem may be defined');
  }
  if (typeof values.jwksEndpoint === 'string') checkJwksEndpoint(values.jwksEndpoint);
  if (typeof values.externalAuthUrl === 'string' && parseUrl(values.externalAuthUrl) === undefined) {
    throw fieldError('externalAuthUrl', values.externalAuthUrl, 'externalAuthUrl must be an absolute URL');
  }
}

/** JWKS keys decide who may log in: they are fetched over https, or plain http on loopback only
 * (a local identity provider, and the tests). */
export function isAllowedJwksUrl(url: URL): boolean {
  if (url.protocol === 'https:') return true;
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function checkJwksEndpoint(value: string): void {
  const url = parseUrl(value);
  if (!url) throw fieldError('jwksEndpoint', value, 'jwksEndpoint must be an absolute URL');
  if (!isAllowedJwksUrl(url)) throw fieldError('jwksEndpoint', value, 'jwksEndpoint must use https (http is allowed on loopback only)');
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
