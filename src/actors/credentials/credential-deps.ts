// What the credential code (enrollment, certificate login and extension) needs from the actor
// dependencies, and its two uses of the worker pool: signing client and server certificates.

import { ApiError } from '../../errors.js';
import type { Replica } from '../../store/replica.js';
import type { SignedCertificate } from '../../workers/tasks.js';
import type { WorkerPool } from '../../workers/pool.js';
import type { EntityWriter } from '../entity-writer.js';
import type { Proposer } from '../proposer.js';

/** The subset of ActorDeps the credential functions use. */
export interface CredentialDeps {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
  pool: WorkerPool;
  baseUrl: string;
  /** The node CA (PEM): it signs enrollment JWTs and every certificate the network issues. */
  signer: { caCertPem: string; caKeyPem: string };
  controllers?: () => string[];
}

/** Validity of certificates the network issues (clients, routers, extensions). */
export const ISSUED_CERT_DAYS = 365;

/** Longest CSR accepted (PEM text). */
export const MAX_CSR_LENGTH = 64 * 1024;

export type IssuedCertificate = Extract<SignedCertificate, { ok: true }>;

/** Signs a CSR with the node CA on the worker pool; a refused CSR is 400 COULD_NOT_PROCESS_CSR
 * (or `commonNameError` when the request names another subject). */
export async function signWithNodeCa(
  deps: CredentialDeps,
  csrPem: unknown,
  usage: 'client' | 'server',
  opts: { commonName?: string; oldCertPem?: string; commonNameError?: ApiError; validityDays?: number } = {},
): Promise<IssuedCertificate> {
  if (typeof csrPem !== 'string' || csrPem.trim() === '' || csrPem.length > MAX_CSR_LENGTH) {
    throw new ApiError('COULD_NOT_PROCESS_CSR', { code: 'UNHANDLED', message: 'a PEM encoded CSR is required' });
  }
  const request = { csrPem, caCertPem: deps.signer.caCertPem, caKeyPem: deps.signer.caKeyPem, validityDays: opts.validityDays ?? ISSUED_CERT_DAYS, usage };
  const signed = opts.oldCertPem
    ? await deps.pool.extendCertificate({ ...request, oldCertPem: opts.oldCertPem })
    : await deps.pool.signCsr({ ...request, commonName: opts.commonName });
  if (signed.ok) return signed;
  if (signed.reason === 'commonName' && opts.commonNameError) throw opts.commonNameError;
  throw new ApiError('COULD_NOT_PROCESS_CSR', { code: 'UNHANDLED', message: signed.message });
}
