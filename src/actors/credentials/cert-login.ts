// The identity actor's half of a certificate login (BEHAVIOR.md §4.8): the gateway found the
// authenticator by the peer certificate's fingerprint; here the chain, the auth policy, the
// validity window and the identity's state are checked against fresh data.

import type { X509Certificate } from 'node:crypto';
import { certAuthError } from '../../domain/cert-auth-failures.js';
import type { Entity } from '../../domain/commands.js';
import { isDisabled } from '../../domain/identity-state.js';
import type { ActorMessage } from '../actor-host.js';
import { createApiSession, type LoginResult, type SessionRequest } from '../api-session-factory.js';
import type { CredentialDeps } from './credential-deps.js';
import { allowsClientAuth, certificateOf, chainsTo, findIssuingCa, peerChainOf, validityAt, type PeerChain } from './trust.js';

interface CertPolicy {
  allowed?: boolean;
  allowExpiredCerts?: boolean;
}

/** Logs `identityId` in with the certificate in `msg.peerCerts`; 401 with the reason otherwise. */
export async function loginWithCertificate(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<LoginResult> {
  const { replica } = deps;
  const chain = peerChainOf(msg.peerCerts);
  if (!chain) throw certAuthError('NO_CERTIFICATE');
  const authenticator = await replica.get('authenticators', String(msg.authenticatorId ?? ''));
  const identity = await replica.get('identities', identityId);
  const matches = authenticator?.method === 'cert' && authenticator.identityId === identityId && authenticator.fingerprint === chain.fingerprint;
  if (!authenticator || !identity || !matches) throw certAuthError('UNKNOWN_CERTIFICATE');
  if (!(await isTrusted(deps, chain))) throw certAuthError('UNTRUSTED_ISSUER');
  if (!allowsClientAuth(chain.leaf)) throw certAuthError('NOT_CLIENT_CERTIFICATE');
  const policy = await certPolicyOf(deps, identity);
  if (policy.allowed !== true) throw certAuthError('CERT_NOT_ALLOWED');
  const validity = validityAt(chain.leaf);
  if (validity === 'notYetValid') throw certAuthError('NOT_YET_VALID');
  if (validity === 'expired' && policy.allowExpiredCerts !== true) throw certAuthError('EXPIRED');
  if (isDisabled(identity)) throw certAuthError('IDENTITY_DISABLED');
  return createApiSession(deps, identity, authenticator.id, msg as SessionRequest);
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
