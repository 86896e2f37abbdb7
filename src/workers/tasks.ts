// The names and payload shapes of worker-pool tasks. Tasks take and return plain data.
import type { PostureBulkInput } from '../domain/posture/evaluate-bulk.js';

export interface HashPasswordTask {
  task: 'hashPassword';
  password: string;
}
export interface HashPasswordResult {
  /** base64 (std) Argon2id hash, 32 bytes. */
  hash: string;
  /** base64 (std) salt, 10 random bytes. */
  salt: string;
}
export interface VerifyPasswordTask {
  task: 'verifyPassword';
  password: string;
  hash: string;
  salt: string;
}
/** Diagnostic: the worker answers with its worker_threads threadId (a number). */
export interface ThreadIdTask {
  task: 'threadId';
}
/** Diagnostic: the worker answers with its thread's scheduling, `{idle, nice}` (null where a
 * thread's own cannot be read). */
export interface ThreadSchedulingTask {
  task: 'threadScheduling';
}
/** Which extended key usage a signed certificate gets. */
export type CertificateUsage = 'client' | 'server';
/** Sign a PKCS#10 CSR (PEM) with the CA: subject and SANs from the request. */
export interface SignCsrTask {
  task: 'signCsr';
  csrPem: string;
  caCertPem: string;
  caKeyPem: string;
  /** Days of validity from now (the start is backdated five minutes). */
  validityDays: number;
  usage: CertificateUsage;
  /** When set, the request's subject common name must equal it. */
  commonName?: string;
}
/** Sign a CSR's key for an existing certificate's subject and SANs (certificate extension). */
export interface ExtendCertificateTask {
  task: 'extendCertificate';
  csrPem: string;
  oldCertPem: string;
  caCertPem: string;
  caKeyPem: string;
  validityDays: number;
  usage: CertificateUsage;
}
/** The signed certificate, or why the request was refused (a bad CSR, a wrong common name). */
export type SignedCertificate =
  | {
      ok: true;
      certPem: string;
      /** Lowercase hex SHA-1 of the certificate DER. */
      fingerprint: string;
      /** Lowercase hex SHA-256 of the subject public key info DER. */
      publicKeyPrint: string;
      notBefore: string;
      notAfter: string;
    }
  | { ok: false; reason: 'csr' | 'commonName'; message: string };
/** Re-evaluates candidate service sessions of many identities (see domain/posture/evaluate-bulk). */
export interface EvaluatePostureBulkTask {
  task: 'evaluatePostureBulk';
  input: PostureBulkInput;
}
export type WorkerTask = HashPasswordTask | VerifyPasswordTask | ThreadIdTask | ThreadSchedulingTask | SignCsrTask | ExtendCertificateTask | EvaluatePostureBulkTask;
