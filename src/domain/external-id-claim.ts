// Reading an identity's external id from a client certificate with a CA's externalIdClaim
// (upstream's x509-claims: locate → match → parse, then pick one by index). Pure: the caller
// hands in the certificate's names already parsed.

import type { ExternalIdClaim } from './ca-rules.js';

/** The certificate values a claim can locate: subject CN, SAN URIs and SAN emails, in order. */
export interface CertificateNames {
  commonName: string;
  uris: string[];
  emails: string[];
}

/**
 * Every candidate the claim yields, in certificate order:
 * - located: COMMON_NAME (the one CN), SAN_URI or SAN_EMAIL (each entry);
 * - matched: ALL keeps the value, PREFIX / SUFFIX keep values with the criteria and strip it,
 *   SCHEME keeps URIs whose scheme is the criteria (case-insensitive) and keeps the whole URI;
 * - parsed: NONE keeps the value, SPLIT splits it on the criteria (empty parts kept).
 * A matcher or parser that does not fit the location, or lacks its criteria, yields nothing.
 */
export function externalIdCandidates(claim: ExternalIdClaim, names: CertificateNames): string[] {
  const located = locate(claim.location, names);
  if (!located) return [];
  const out: string[] = [];
  for (const value of located.values) {
    const matched = match(claim, value, located.isUri);
    if (matched === undefined) continue;
    const parsed = parse(claim, matched);
    if (!parsed) return [];
    out.push(...parsed);
  }
  return out;
}

/** The candidate at `claim.index`; undefined when there is none or it is empty. */
export function extractExternalId(claim: ExternalIdClaim, names: CertificateNames): string | undefined {
  const index = Number.isInteger(claim.index) && claim.index >= 0 ? claim.index : 0;
  const value = externalIdCandidates(claim, names)[index];
  return value === undefined || value === '' ? undefined : value;
}

/** A short description of the claim for error causes, e.g. `SAN_URI SCHEME "spiffe" [0]`. */
export function describeClaim(claim: ExternalIdClaim): string {
  const criteria = claim.matcher === 'ALL' ? '' : ` ${JSON.stringify(claim.matcherCriteria)}`;
  const split = claim.parser === 'SPLIT' ? ` SPLIT ${JSON.stringify(claim.parserCriteria)}` : '';
  return `${claim.location} ${claim.matcher}${criteria}${split} [${claim.index}]`;
}

function locate(location: ExternalIdClaim['location'], names: CertificateNames): { values: string[]; isUri: boolean } | undefined {
  switch (location) {
    case 'COMMON_NAME':
      return { values: [names.commonName], isUri: false };
    case 'SAN_URI':
      return { values: names.uris, isUri: true };
    case 'SAN_EMAIL':
      return { values: names.emails, isUri: false };
    default:
      return undefined;
  }
}

/** The matched (possibly trimmed) value, or undefined when it does not match. */
function match(claim: ExternalIdClaim, value: string, isUri: boolean): string | undefined {
  const criteria = claim.matcherCriteria;
  switch (claim.matcher) {
    case 'ALL':
      return value;
    case 'PREFIX':
      if (isUri || criteria === '') return undefined;
      return value.startsWith(criteria) ? value.slice(criteria.length) : undefined;
    case 'SUFFIX':
      if (isUri || criteria === '') return undefined;
      return value.endsWith(criteria) ? value.slice(0, value.length - criteria.length) : undefined;
    case 'SCHEME':
      if (!isUri || criteria === '') return undefined;
      return schemeOf(value) === criteria.toLowerCase() ? value : undefined;
    default:
      return undefined;
  }
}

function parse(claim: ExternalIdClaim, value: string): string[] | undefined {
  if (claim.parser === 'NONE') return [value];
  if (claim.parser === 'SPLIT' && claim.parserCriteria !== '') return value.split(claim.parserCriteria);
  return undefined;
}

/** RFC 3986 scheme (letter, then letters, digits, `+`, `-`, `.`), lowercased; '' when none. */
function schemeOf(uri: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri);
  return m ? m[1]!.toLowerCase() : '';
}
