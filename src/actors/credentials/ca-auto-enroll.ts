// CA auto-enrollment (`POST /enroll?method=ca`, BEHAVIOR.md §5.3), in the new identity's actor:
// the first verified auto-enrolling CA that vouches for the client certificate names it and gives
// its roles; the certificate becomes its authenticator, or the CA's externalIdClaim its externalId.

import type { Entity } from '../../domain/commands.js';
import { describeClaim } from '../../domain/external-id-claim.js';
import { DEFAULT_IDENTITY_NAME_FORMAT } from '../../domain/resources/cas.js';
import { ApiError } from '../../errors.js';
import type { ActorMessage } from '../actor-host.js';
import { commonNameOf } from '../../pki/ca-certificates.js';
import type { CredentialDeps } from './credential-deps.js';
import { claimOf, externalIdOf } from '../../pki/external-id.js';
import { certAuthenticator, refuseUsedFingerprint } from './identity-enroll.js';
import { allCas, allowsClientAuth, caCertificateOf, chainsTo, peerChainOf, validityAt, type PeerChain } from '../../pki/trust.js';

/** Creates identity `identityId` from the client certificate in `msg.peerCerts`. */
export async function enrollWithCa(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<Record<string, never>> {
  const cas = await allCas(deps.replica);
  if (cas.length === 0) throw new ApiError('ENROLLMENT_NO_VALID_CAS');
  const chain = peerChainOf(msg.peerCerts);
  if (!chain) throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'no client certificate was presented' });
  const ca = cas.find((candidate) => vouchesFor(candidate, chain));
  if (!ca) throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'no verified CA with auto enrollment validates the client certificate' });
  const externalId = await externalIdToEnroll(deps, ca, chain);
  if (externalId === undefined) await refuseUsedFingerprint(deps, chain.fingerprint);
  const requested = typeof msg.name === 'string' && msg.name !== '' ? msg.name : identityId;
  const format = typeof ca.identityNameFormat === 'string' && ca.identityNameFormat !== '' ? ca.identityNameFormat : DEFAULT_IDENTITY_NAME_FORMAT;
  const name = await uniqueName(deps, formatIdentityName(format, {
    caName: String(ca.name), caId: ca.id, commonName: commonNameOf(chain.leaf), requestedName: requested, identityId,
  }));
  const at = new Date().toISOString();
  const identity = deps.writer.buildCreate('identities', identityId, {
    name, type: 'Default', isAdmin: false, roleAttributes: (ca.identityRoles as string[] | undefined) ?? [],
    ...(externalId === undefined ? {} : { externalId }),
  }, at);
  if (externalId !== undefined) {
    // The identity is found by its external id at login: no certificate authenticator (upstream).
    await deps.proposer.propose([identity], at);
    return {};
  }
  const authenticator = certAuthenticator(identityId, chain.leaf.toString(), chain.fingerprint, {});
  await deps.proposer.propose([identity, { op: 'create', kind: 'authenticators', record: authenticator }], at);
  return {};
}

/** With an externalIdClaim on the CA: the value it reads from the certificate (400
 * MISSING_CERT_CLAIM when none, 409 CERT_IN_USE when an identity already has it). */
async function externalIdToEnroll(deps: CredentialDeps, ca: Entity, chain: PeerChain): Promise<string | undefined> {
  const claim = claimOf(ca);
  if (!claim) return undefined;
  const externalId = externalIdOf(ca, chain.leaf);
  if (externalId === undefined) {
    throw new ApiError('MISSING_CERT_CLAIM', {
      code: 'UNHANDLED',
      message: `the CA reads the external id from the certificate with ${describeClaim(claim)} and the certificate holds no such value`,
    });
  }
  if (await deps.replica.findUnique('identities', 'externalId', externalId)) {
    throw new ApiError('CERT_IN_USE', { code: 'UNHANDLED', message: 'an identity with the external id read from the certificate already exists' });
  }
  return externalId;
}

function vouchesFor(ca: Entity, chain: PeerChain): boolean {
  if (ca.isAutoCaEnrollmentEnabled !== true || ca.isVerified !== true) return false;
  const anchor = caCertificateOf(ca);
  return anchor !== undefined && chainsTo(chain.leaf, chain.intermediates, anchor) && allowsClientAuth(chain.leaf) && validityAt(chain.leaf) === 'valid';
}

/** The placeholders of `identityNameFormat`. */
export interface IdentityNameValues {
  caName: string;
  caId: string;
  commonName: string;
  requestedName: string;
  identityId: string;
}

/** Replaces `[caName]`, `[caId]`, `[commonName]`, `[requestedName]` and `[identityId]`. */
export function formatIdentityName(format: string, values: IdentityNameValues): string {
  return format.replace(/\[(caName|caId|commonName|requestedName|identityId)\]/g, (_, key: keyof IdentityNameValues) => values[key]);
}

/** On a collision a six-digit counter is appended to the previous candidate (cumulatively, as
 * upstream does: `name000001`, then `name000001000002`). */
async function uniqueName(deps: CredentialDeps, name: string): Promise<string> {
  let candidate = name;
  for (let counter = 1; await deps.replica.findUnique('identities', 'name', candidate); counter++) {
    candidate = `${candidate}${String(counter).padStart(6, '0')}`;
  }
  return candidate;
}
