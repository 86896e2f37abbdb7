// Token enrollment (`POST /enroll/token`), in the new identity's actor: a JWT of an external JWT
// signer that allows it creates an identity named by the token (externalId = the signer's id
// claim), with a network-issued certificate when a CSR comes along (enrollToCertEnabled) or for
// ext-jwt logins without one (enrollToTokenEnabled). Upstream's checks, in upstream's order.

import type { Entity, Op } from '../../domain/commands.js';
import { stringClaimAt, stringListClaimAt } from '../../domain/jwt-claims.js';
import { ApiError } from '../../errors.js';
import type { TokenEnrollment } from '../../protocol/v1/identity-commands.js';
import type { ActorMessage } from '../actor-host.js';
import { signWithNodeCa, type CredentialDeps } from './credential-deps.js';
import { certAuthenticator, refuseUsedFingerprint } from './identity-enroll.js';

export type { TokenEnrollment };

const DEFAULT_AUTH_POLICY = 'default';

/** `{cert, ca}` for a certificate enrollment, `{}` for a token one. */
export async function enrollWithToken(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<{ cert?: string; ca?: string }> {
  const request = msg.body as TokenEnrollment;
  const signer = await deps.replica.get('external-jwt-signers', request.signerId);
  if (!signer || signer.enabled !== true) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  const name = stringClaimAt(request.claims, selector(signer.enrollNameClaimsSelector, '/sub'));
  const externalId = stringClaimAt(request.claims, selector(signer.claimsProperty, '/sub'));
  if (name === undefined || externalId === undefined) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  const attributeSelector = selector(signer.enrollAttributeClaimsSelector, '');
  const roleAttributes = attributeSelector === '' ? [] : stringListClaimAt(request.claims, attributeSelector);
  if (await deps.replica.findUnique('identities', 'externalId', externalId)) throw new ApiError('ENROLLMENT_IDENTITY_ALREADY_ENROLLED');
  const toCert = typeof request.csr === 'string' && request.csr !== '';
  if (toCert ? signer.enrollToCertEnabled !== true : signer.enrollToTokenEnabled !== true) throw new ApiError('INVALID_ENROLLMENT_NOT_ALLOWED');
  const authPolicyId = typeof signer.enrollAuthPolicyId === 'string' && signer.enrollAuthPolicyId !== '' ? signer.enrollAuthPolicyId : DEFAULT_AUTH_POLICY;
  const policy = await deps.replica.get('auth-policies', authPolicyId);
  if (!policy) throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `could not read auth policy ${authPolicyId}` });
  if (!policyAllows(policy, signer.id, toCert)) throw new ApiError('INVALID_ENROLLMENT_NOT_ALLOWED');

  const at = new Date().toISOString();
  const body = { name, type: 'Default', isAdmin: false, roleAttributes, authPolicyId, externalId };
  const ops: Op[] = [deps.writer.buildCreate('identities', identityId, body, at)];
  if (!toCert) {
    await deps.proposer.propose(ops, at);
    return {};
  }
  const signed = await signWithNodeCa(deps, request.csr, 'client');
  await refuseUsedFingerprint(deps, signed.fingerprint);
  const authenticator = certAuthenticator(identityId, signed.certPem, signed.fingerprint, { isIssuedByNetwork: true, publicKeyPrint: signed.publicKeyPrint });
  ops.push({ op: 'create', kind: 'authenticators', record: authenticator });
  await deps.proposer.propose(ops, at);
  return { cert: signed.certPem, ca: deps.signer.caCertPem };
}

/** A signer's claim selector, or the fallback when it sets none. */
function selector(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/** The policy allows certificates (cert enrollment), or ext-jwt logins from this signer. An
 * empty `allowedSigners` allows every signer. */
function policyAllows(policy: Entity, signerId: string, toCert: boolean): boolean {
  const primary = (policy.primary ?? {}) as { cert?: { allowed?: boolean }; extJwt?: { allowed?: boolean; allowedSigners?: string[] | null } };
  if (toCert) return primary.cert?.allowed === true;
  if (primary.extJwt?.allowed !== true) return false;
  const signers = primary.extJwt.allowedSigners ?? [];
  return signers.length === 0 || signers.includes(signerId);
}
