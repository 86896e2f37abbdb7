// Extending a network-issued client certificate, in the identity's actor: `extend` signs the
// CSR's key for the current certificate's subject and keeps the result unverified (the old one
// still logs in); `extend-verify` puts the new certificate in force (the old one stops working).

import { createHash } from 'node:crypto';
import { recordFingerprint, type Entity } from '../../domain/commands.js';
import { ApiError } from '../../errors.js';
import type { ActorMessage } from '../actor-host.js';
import { nodeCaOf } from './cert-login.js';
import { signWithNodeCa, type CredentialDeps } from './credential-deps.js';
import { chainsTo, peerChainOf } from '../../pki/trust.js';

/** `POST /current-identity/authenticators/{id}/extend {clientCertCsr}` → `{clientCert, ca}`. */
export async function extendCertificate(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<{ clientCert: string; ca: string }> {
  const authenticator = await ownCertAuthenticator(deps, identityId, String(msg.authenticatorId ?? ''));
  if (authenticator.isIssuedByNetwork !== true || typeof authenticator.certPem !== 'string' || authenticator.certPem === '') {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', { code: 'UNHANDLED', message: 'only certificates issued by the network can be extended' });
  }
  // The request must come over TLS with the certificate being extended, issued by the node CA.
  const chain = peerChainOf(msg.peerCerts);
  if (!chain || chain.fingerprint !== authenticator.fingerprint || !chainsTo(chain.leaf, chain.intermediates, nodeCaOf(deps))) {
    throw new ApiError('UNAUTHORIZED', { code: 'UNHANDLED', message: 'the request must present the current certificate of the authenticator' });
  }
  const csrPem = (msg.body as { clientCertCsr?: unknown } | null)?.clientCertCsr;
  const signed = await signWithNodeCa(deps, csrPem, 'client', { oldCertPem: authenticator.certPem });
  const at = new Date().toISOString();
  const fields = { unverifiedCertPem: signed.certPem, unverifiedFingerprint: signed.fingerprint, updatedAt: at };
  await deps.proposer.propose([{ op: 'set', kind: 'authenticators', id: authenticator.id, fields, expect: recordFingerprint(authenticator) }], at);
  return { clientCert: signed.certPem, ca: deps.signer.caCertPem };
}

/** `POST .../extend-verify {clientCert}`: the certificate returned by extend becomes current. */
export async function verifyExtendedCertificate(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<Record<string, never>> {
  const authenticator = await ownCertAuthenticator(deps, identityId, String(msg.authenticatorId ?? ''));
  const pending = authenticator.unverifiedCertPem;
  if (typeof pending !== 'string' || pending === '' || !authenticator.unverifiedFingerprint) {
    throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR', { code: 'UNHANDLED', message: 'no extended certificate is waiting for verification' });
  }
  const presented = peerChainOf([(msg.body as { clientCert?: unknown } | null)?.clientCert]);
  if (!presented || presented.fingerprint !== authenticator.unverifiedFingerprint) throw new ApiError('INVALID_CLIENT_CERT');
  const publicKeyPrint = keyPrintOf(presented.leaf.publicKey.export({ type: 'spki', format: 'der' }));
  const at = new Date().toISOString();
  const fields = {
    certPem: pending,
    fingerprint: authenticator.unverifiedFingerprint,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
    isExtendRequested: false,
    isKeyRollRequested: false,
    extendRequestedAt: null,
    lastExtendRolledKeys: authenticator.publicKeyPrint ? authenticator.publicKeyPrint !== publicKeyPrint : true,
    publicKeyPrint,
    updatedAt: at,
  };
  await deps.proposer.propose([{ op: 'set', kind: 'authenticators', id: authenticator.id, fields, expect: recordFingerprint(authenticator) }], at);
  return {};
}

/** The caller's own certificate authenticator: 404 when missing, 401 when someone else's. */
async function ownCertAuthenticator(deps: CredentialDeps, identityId: string, id: string): Promise<Entity> {
  const authenticator = await deps.replica.get('authenticators', id);
  if (!authenticator) throw new ApiError('NOT_FOUND');
  if (authenticator.identityId !== identityId) throw new ApiError('UNAUTHORIZED');
  if (authenticator.method !== 'cert') throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
  return authenticator;
}

function keyPrintOf(spkiDer: Buffer): string {
  return createHash('sha256').update(spkiDer).digest('hex');
}
