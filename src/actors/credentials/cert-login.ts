// The identity actor's half of a certificate login (BEHAVIOR.md §4.8): the gateway found the
// authenticator by fingerprint, or the identity by the external id a CA's claim reads; here trust,
// auth policy, validity window and the identity's state are checked against fresh data.

import type { X509Certificate } from 'node:crypto';
import { certAuthError } from '../../domain/cert-auth-failures.js';
import type { Entity } from '../../domain/commands.js';
import { isDisabled } from '../../domain/identity-state.js';
import type { ActorMessage } from '../actor-host.js';
import { createApiSession, type LoginResult, type SessionRequest } from '../api-session-factory.js';
import type { CredentialDeps } from './credential-deps.js';
import { externalIdOf, vouchesByExternalId } from '../../pki/external-id.js';
import { allowsClientAuth, certificateOf, chainsTo, findIssuingCa, peerChainOf, validityAt, type PeerChain } from '../../pki/trust.js';

interface CertPolicy {
  allowed?: boolean;
  allowExpiredCerts?: boolean;
}

/** Logs `identityId` in with the certificate in `msg.peerCerts`; 401 with the reason otherwise. */
export async function loginWithCertificate(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<LoginResult> {
  const chain = peerChainOf(msg.peerCerts);
  if (!chain) throw certAuthError('NO_CERTIFICATE');
  const { identity, authenticatorId } = typeof msg.externalId === 'string'
    ? await byExternalId(deps, identityId, chain, msg)
    : await byAuthenticator(deps, identityId, chain, msg);
  if (!allowsClientAuth(chain.leaf)) throw certAuthError('NOT_CLIENT_CERTIFICATE');
  const policy = await certPolicyOf(deps, identity);
  if (policy.allowed !== true) throw certAuthError('CERT_NOT_ALLOWED');
  const validity = validityAt(chain.leaf);
  if (validity === 'notYetValid') throw certAuthError('NOT_YET_VALID');
  if (validity === 'expired' && policy.allowExpiredCerts !== true) throw certAuthError('EXPIRED');
  if (isDisabled(identity)) throw certAuthError('IDENTITY_DISABLED');
  return createApiSession(deps, identity, authenticatorId, msg as SessionRequest);
}

/** Upstream's id for the authenticator of a login by external id (there is no record). */
export const EXTERNAL_ID_AUTHENTICATOR_ID = 'internal';

interface LoginSubject {
  identity: Entity;
  authenticatorId: string;
}

/** The certificate authenticator the gateway found by fingerprint, and a trusted issuer. */
async function byAuthenticator(deps: CredentialDeps, identityId: string, chain: PeerChain, msg: ActorMessage): Promise<LoginSubject> {
  const authenticator = await deps.replica.get('authenticators', String(msg.authenticatorId ?? ''));
  const identity = await deps.replica.get('identities', identityId);
  const matches = authenticator?.method === 'cert' && authenticator.identityId === identityId && authenticator.fingerprint === chain.fingerprint;
  if (!authenticator || !identity || !matches) throw certAuthError('UNKNOWN_CERTIFICATE');
  if (!(await isTrusted(deps, chain))) throw certAuthError('UNTRUSTED_ISSUER');
  return { identity, authenticatorId: authenticator.id };
}

/** The CA the gateway named must still authenticate by external id and vouch for the chain, and
 * its claim must still read this identity's external id. */
async function byExternalId(deps: CredentialDeps, identityId: string, chain: PeerChain, msg: ActorMessage): Promise<LoginSubject> {
  const identity = await deps.replica.get('identities', identityId);
  if (!identity || identity.externalId !== msg.externalId) throw certAuthError('UNKNOWN_EXTERNAL_ID');
  const ca = await deps.replica.get('cas', String(msg.caId ?? ''));
  if (!ca || !vouchesByExternalId(ca, chain)) throw certAuthError('UNTRUSTED_ISSUER');
  if (externalIdOf(ca, chain.leaf) !== identity.externalId) throw certAuthError('UNKNOWN_EXTERNAL_ID');
  return { identity, authenticatorId: EXTERNAL_ID_AUTHENTICATOR_ID };
}

/** The node CA as a parsed certificate. */
export function nodeCaOf(deps: CredentialDeps): X509Certificate {
  return certificateOf(deps.signer.caCertPem);
}

/** Issued by the node CA, or by a verified third-party CA that allows authentication. */
async function isTrusted(deps: CredentialDeps, chain: PeerChain): Promise<boolean> {
  if (chainsTo(chain.leaf, chain.intermediates, nodeCaOf(deps))) return true;
  const ca = await findIssuingCa(deps.replica, chain, (c) => c.isVerified === true && c.isAuthEnabled === true);
  return ca !== undefined;
}

async function certPolicyOf(deps: CredentialDeps, identity: Entity): Promise<CertPolicy> {
  const policy = await deps.replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
  return ((policy?.primary as { cert?: CertPolicy } | undefined)?.cert ?? {}) as CertPolicy;
}
