// Redeeming an identity enrollment, in the identity's actor (BEHAVIOR.md §5.1): ott signs the
// client's CSR, ottca takes the client certificate of the enrollment's CA, updb sets a password.
// Each ends in one command: the enrollment is deleted and the authenticator created.

import type { Entity, Op } from '../../domain/commands.js';
import { newId } from '../../domain/ids.js';
import { ApiError, fieldError } from '../../errors.js';
import type { ActorMessage } from '../actor-host.js';
import { hashPasswordFor } from '../authenticator-catalog.js';
import { signWithNodeCa, type CredentialDeps } from './credential-deps.js';
import { allowsClientAuth, caCertificateOf, chainsTo, peerChainOf, validityAt, type PeerChain } from '../../pki/trust.js';

/** What the gateway returns to the enrolling client: the certificate (ott) or nothing else. */
export interface EnrollReply {
  cert?: string;
  ca?: string;
  username?: string;
}

/** Redeems the enrollment of `msg.token` for identity `identityId`. */
export async function enrollIdentity(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<EnrollReply> {
  const { replica } = deps;
  const enrollment = await replica.findUnique('enrollments', 'token', String(msg.token ?? ''));
  if (!enrollment || enrollment.identityId !== identityId) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (typeof msg.method === 'string' && msg.method !== enrollment.method) throw new ApiError('INVALID_ENROLL_METHOD');
  if (Date.parse(String(enrollment.expiresAt)) <= Date.now()) throw new ApiError('ENROLLMENT_EXPIRED');
  const identity = await replica.get('identities', identityId);
  if (!identity) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  switch (enrollment.method) {
    case 'ott':
      return enrollOtt(deps, identity, enrollment, msg.csrPem);
    case 'ottca':
      return enrollOttCa(deps, identity, enrollment, peerChainOf(msg.peerCerts));
    case 'updb':
      return enrollUpdb(deps, identity, enrollment, msg.password);
    default:
      throw new ApiError('INVALID_ENROLL_METHOD');
  }
}

async function enrollOtt(deps: CredentialDeps, identity: Entity, enrollment: Entity, csrPem: unknown): Promise<EnrollReply> {
  await refuseSecond(deps, identity.id, 'cert');
  const signed = await signWithNodeCa(deps, csrPem, 'client');
  await refuseUsedFingerprint(deps, signed.fingerprint);
  const authenticator = certAuthenticator(identity.id, signed.certPem, signed.fingerprint, { isIssuedByNetwork: true, publicKeyPrint: signed.publicKeyPrint });
  await redeem(deps, enrollment, authenticator);
  return { cert: signed.certPem, ca: deps.signer.caCertPem };
}

/** The enrollment's CA must still allow ottca and be verified; the client certificate must chain
 * to it, allow client authentication and be within its validity. */
async function enrollOttCa(deps: CredentialDeps, identity: Entity, enrollment: Entity, chain: PeerChain | undefined): Promise<EnrollReply> {
  const ca = await deps.replica.get('cas', String(enrollment.caId ?? ''));
  if (!ca) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (ca.isOttCaEnrollmentEnabled !== true || ca.isVerified !== true) throw new ApiError('ENROLLMENT_CA_NOT_VALID');
  const anchor = caCertificateOf(ca);
  if (!chain || !anchor) throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'no client certificate was presented' });
  if (!chainsTo(chain.leaf, chain.intermediates, anchor) || !allowsClientAuth(chain.leaf) || validityAt(chain.leaf) !== 'valid') {
    throw new ApiError('CERT_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'the client certificate does not validate against the enrollment CA' });
  }
  await refuseUsedFingerprint(deps, chain.fingerprint);
  await refuseSecond(deps, identity.id, 'cert');
  await redeem(deps, enrollment, certAuthenticator(identity.id, chain.leaf.toString(), chain.fingerprint, {}));
  return {};
}

async function enrollUpdb(deps: CredentialDeps, identity: Entity, enrollment: Entity, password: unknown): Promise<EnrollReply> {
  if (typeof password !== 'string' || password === '') throw fieldError('password', null, 'password is required');
  const length = [...password].length;
  if (length < 5 || length > 100) throw fieldError('password', '******', 'password must be 5 to 100 characters long');
  await refuseSecond(deps, identity.id, 'updb');
  const username = String(enrollment.username ?? '');
  if (await deps.replica.findUnique('authenticators', 'username', username)) throw fieldError('username', username, 'username must be unique');
  const hashed = await hashPasswordFor(deps, identity, password);
  const at = new Date().toISOString();
  const authenticator: Entity = {
    id: newId(), createdAt: at, updatedAt: at, tags: {}, method: 'updb', identityId: identity.id, username, fingerprint: null, ...hashed,
  };
  await redeem(deps, enrollment, authenticator);
  return { username };
}

/** A certificate authenticator record (the fields cert login and extension use). */
export function certAuthenticator(identityId: string, certPem: string, fingerprint: string, extra: Record<string, unknown>): Entity {
  const at = new Date().toISOString();
  return {
    id: newId(), createdAt: at, updatedAt: at, tags: {}, method: 'cert', identityId, username: null, certPem, fingerprint,
    isIssuedByNetwork: false, isExtendRequested: false, isKeyRollRequested: false, extendRequestedAt: null, lastExtendRolledKeys: false,
    unverifiedCertPem: null, unverifiedFingerprint: null, publicKeyPrint: null, ...extra,
  };
}

/** One command: the enrollment is used up and the authenticator exists. */
async function redeem(deps: CredentialDeps, enrollment: Entity, authenticator: Entity): Promise<void> {
  const ops: Op[] = [
    { op: 'delete', kind: 'enrollments', id: enrollment.id },
    { op: 'create', kind: 'authenticators', record: authenticator },
  ];
  await deps.proposer.propose(ops, authenticator.createdAt);
}

/** 409 CERT_IN_USE when another authenticator holds the certificate. */
export async function refuseUsedFingerprint(deps: CredentialDeps, fingerprint: string): Promise<void> {
  if (await deps.replica.findUnique('authenticators', 'fingerprint', fingerprint)) throw new ApiError('CERT_IN_USE');
}

/** An identity has at most one authenticator per method. */
async function refuseSecond(deps: CredentialDeps, identityId: string, method: string): Promise<void> {
  for await (const id of deps.replica.idsWhere('authenticators', 'identityId', identityId)) {
    if ((await deps.replica.get('authenticators', id))?.method === method) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
  }
}
