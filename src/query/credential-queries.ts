// Reads of the credential resources: the lookups an ext-jwt login needs (signer by issuer,
// identity by claim) and the wire shapes of CAs and external JWT signers. Never writes.

import type { Entity } from '../domain/commands.js';
import type { HandlerTable } from '../protocol/v1/handler-table.js';
import type { QueryRequest } from '../protocol/v1/query-messages.js';
import type { Replica } from '../store/replica.js';
import type { Decorators, Wire } from './present.js';

/** `extJwtSigner` (by issuer) and `extJwtIdentity` (by claim value). */
export function credentialQueries(replica: Replica): Pick<HandlerTable<QueryRequest>, 'extJwtSigner' | 'extJwtIdentity'> {
  return {
    extJwtSigner: (m) => signerByIssuer(replica, m.issuer),
    extJwtIdentity: async (m) => {
      if (m.value === '') return null;
      const identity = m.useExternalId ? await replica.findUnique('identities', 'externalId', m.value) : await replica.get('identities', m.value);
      return identity ? { identityId: identity.id } : null;
    },
  };
}

async function signerByIssuer(replica: Replica, issuer: string): Promise<Record<string, unknown> | null> {
  const signer = issuer === '' ? undefined : await replica.findUnique('external-jwt-signers', 'issuer', issuer);
  if (!signer) return null;
  return {
    id: signer.id,
    enabled: signer.enabled === true,
    certPem: signer.certPem ?? null,
    jwksEndpoint: signer.jwksEndpoint ?? null,
    kid: signer.kid ?? null,
    fingerprint: signer.fingerprint ?? null,
    audience: String(signer.audience ?? ''),
    claimsProperty: String(signer.claimsProperty ?? 'sub'),
    useExternalId: signer.useExternalId === true,
    updatedAt: signer.updatedAt,
  };
}

/** CA links as upstream: `verify` while unverified, `jwt` while auto-enrollment is on. */
function presentCa(wire: Wire, record: Entity): void {
  const href = (rel: string) => ({ href: `./cas/${encodeURIComponent(record.id)}/${rel}` });
  if (wire.externalIdClaim === null || wire.externalIdClaim === undefined) delete wire.externalIdClaim;
  wire._links = {
    ...(wire._links as Wire),
    ...(record.isVerified === true ? {} : { verify: href('verify') }),
    ...(record.isAutoCaEnrollmentEnabled === true ? { jwt: href('jwt') } : {}),
  };
}

/** Every signer detail field is present (upstream lists them all as required). */
function presentSigner(wire: Wire): void {
  for (const name of ['certPem', 'jwksEndpoint', 'externalAuthUrl']) {
    wire[name] ??= null;
  }
  // The spec has strings here, never null (a JWKS signer has no certificate): empty, and Go's
  // zero time for the validity dates.
  for (const name of ['fingerprint', 'kid', 'clientId', 'enrollAuthPolicyId']) wire[name] ??= '';
  for (const name of ['notBefore', 'notAfter']) wire[name] ??= '0001-01-01T00:00:00.000Z';
  wire.commonName ??= '';
  wire.scopes ??= [];
}

/** CAs and external JWT signers as the spec shows them. */
export function credentialDecorators(): Decorators {
  return {
    cas: async (wire, record) => presentCa(wire, record),
    'external-jwt-signers': async (wire) => presentSigner(wire),
  };
}
