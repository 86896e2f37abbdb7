// Router enrollment (BEHAVIOR.md §5.2), in the router kind's catalog actor: the one-time token
// buys a server certificate (SANs from its CSR) and a client certificate (CN = router id); the
// router becomes verified and its client certificate's fingerprint is what identifies it. An
// enrolled router renews both with `/enroll/extend/router`, proving itself by that certificate.

import { recordFingerprint } from '../../domain/commands.js';
import { resourceOf, type Kind } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import type { ActorMessage } from '../actor-host.js';
import { nodeCaOf } from './cert-login.js';
import { signWithNodeCa, type CredentialDeps } from './credential-deps.js';
import { chainsTo, peerChainOf } from '../../pki/trust.js';

/** The certificates returned to a router: its client and server certificates and the CA. */
export interface RouterCerts {
  ca: string;
  cert: string;
  serverCert: string;
}

/** Router kind → the enrollment method its JWT names. */
const METHOD_OF: Record<string, string> = { 'edge-routers': 'erott', routers: 'trott' };

/** Redeems the router's enrollment token for its certificates. */
export async function enrollRouter(deps: CredentialDeps, kind: Kind, id: string, msg: ActorMessage): Promise<RouterCerts> {
  const router = await deps.replica.get(kind, id);
  if (!router || !router.enrollmentToken || router.enrollmentToken !== msg.token) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (typeof msg.method === 'string' && msg.method !== METHOD_OF[kind]) throw new ApiError('INVALID_ENROLL_METHOD');
  if (Date.parse(String(router.enrollmentExpiresAt)) <= Date.now()) throw new ApiError('ENROLLMENT_EXPIRED');
  const certs = await signRouterCsrs(deps, id, msg.serverCsr, msg.clientCsr);
  const at = new Date().toISOString();
  const fields: Record<string, unknown> = {
    isVerified: true, fingerprint: certs.fingerprint, enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null, updatedAt: at,
  };
  if ('certPem' in resourceOf(kind).fields) fields.certPem = certs.cert;
  await deps.proposer.propose([{ op: 'set', kind, id, fields, expect: recordFingerprint(router) }], at);
  return { ca: certs.ca, cert: certs.cert, serverCert: certs.serverCert };
}

/** New certificates for an enrolled router that presents its current client certificate. */
export async function extendRouterEnrollment(deps: CredentialDeps, kind: Kind, id: string, msg: ActorMessage): Promise<RouterCerts> {
  const router = await deps.replica.get(kind, id);
  const chain = peerChainOf(msg.peerCerts);
  if (!router || !chain || router.isVerified !== true || router.fingerprint !== chain.fingerprint) throw new ApiError('UNAUTHORIZED');
  if (!chainsTo(chain.leaf, chain.intermediates, nodeCaOf(deps))) throw new ApiError('UNAUTHORIZED');
  const certs = await signRouterCsrs(deps, id, msg.serverCsr, msg.clientCsr);
  const at = new Date().toISOString();
  const fields: Record<string, unknown> = { fingerprint: certs.fingerprint, updatedAt: at };
  if ('certPem' in resourceOf(kind).fields) fields.certPem = certs.cert;
  await deps.proposer.propose([{ op: 'set', kind, id, fields, expect: recordFingerprint(router) }], at);
  return { ca: certs.ca, cert: certs.cert, serverCert: certs.serverCert };
}

/** Both CSRs are required; the client CSR's common name must be the router id. */
async function signRouterCsrs(deps: CredentialDeps, id: string, serverCsr: unknown, clientCsr: unknown): Promise<RouterCerts & { fingerprint: string }> {
  if (typeof serverCsr !== 'string' || serverCsr.trim() === '') throw missingCsr('invalid server CSR');
  if (typeof clientCsr !== 'string' || clientCsr.trim() === '') throw missingCsr('invalid client CSR');
  const commonNameError = new ApiError('EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID');
  const [server, client] = await Promise.all([
    signWithNodeCa(deps, serverCsr, 'server'),
    signWithNodeCa(deps, clientCsr, 'client', { commonName: id, commonNameError }),
  ]);
  return { ca: deps.signer.caCertPem, cert: client.certPem, serverCert: server.certPem, fingerprint: client.fingerprint };
}

function missingCsr(message: string): ApiError {
  return new ApiError('MISSING_OR_INVALID_CSR', { code: 'UNHANDLED', message });
}
