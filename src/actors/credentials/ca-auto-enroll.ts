// CA auto-enrollment (`POST /enroll?method=ca`, BEHAVIOR.md §5.3), in the actor of the identity
// it creates: the first verified CA with auto-enrollment on that vouches for the client
// certificate names the identity, gives it its roles, and the certificate becomes its authenticator.

import type { Entity } from '../../domain/commands.js';
import { DEFAULT_IDENTITY_NAME_FORMAT } from '../../domain/resources/cas.js';
import { ApiError } from '../../errors.js';
import type { ActorMessage } from '../actor-host.js';
import { commonNameOf } from '../ca-certificates.js';
import type { CredentialDeps } from './credential-deps.js';
import { certAuthenticator, refuseUsedFingerprint } from './identity-enroll.js';
import { allCas, allowsClientAuth, caCertificateOf, chainsTo, peerChainOf, validityAt, type PeerChain } from './trust.js';

/** Creates identity `identityId` from the client certificate in `msg.peerCerts`. */
export async function enrollWithCa(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<Record<string, never>> {
  const cas = await allCas(deps.replica);
  if (cas.length === 0) throw new ApiError('ENROLLMENT_NO_VALID_CAS');
  const chain = peerChainOf(msg.peerCerts);
  if (!chain) throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'no client certificate was presented' });
  const ca = cas.find((candidate) => vouchesFor(candidate, chain));
  if (!ca) throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'no verified CA with auto enrollment validates the client certificate' });
  await refuseUsedFingerprint(deps, chain.fingerprint);
  const requested = typeof msg.name === 'string' && msg.name !== '' ? msg.name : identityId;
  const format = typeof ca.identityNameFormat === 'string' && ca.identityNameFormat !== '' ? ca.identityNameFormat : DEFAULT_IDENTITY_NAME_FORMAT;
  const name = await uniqueName(deps, formatIdentityName(format, {
    caName: String(ca.name), caId: ca.id, commonName: commonNameOf(chain.leaf), requestedName: requested, identityId,
  }));
  const at = new Date().toISOString();
  const identity = deps.writer.buildCreate('identities', identityId, {
    name, type: 'Default', isAdmin: false, roleAttributes: (ca.identityRoles as string[] | undefined) ?? [],
  }, at);
  const authenticator = certAuthenticator(identityId, chain.leaf.toString(), chain.fingerprint, {});
  await deps.proposer.propose([identity, { op: 'create', kind: 'authenticators', record: authenticator }], at);
  return {};
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
