// PEM certificate helpers of the credential actors: split PEM text into blocks, parse them, and
// read what the CA and signer rules need (fingerprint, common name, issuance). No storage.

import { createHash, X509Certificate } from 'node:crypto';

/** One PEM block: its label (`CERTIFICATE`, `PRIVATE KEY`, ...) and its base64 body. */
export interface PemBlock {
  type: string;
  pem: string;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Every PEM block in the text, in order. */
export function pemBlocks(text: string): PemBlock[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ type: m[1]!, pem: m[0] }));
}

/** Parses each CERTIFICATE block; throws (Node's error) on a block that is not X.509. */
export function parseCertificates(text: string): X509Certificate[] {
  return pemBlocks(text)
    .filter((b) => b.type === 'CERTIFICATE')
    .map((b) => new X509Certificate(b.pem));
}

/** Lowercase hex SHA-1 of the DER, as upstream fingerprints certificates. */
export function certFingerprint(cert: X509Certificate): string {
  return createHash('sha1').update(cert.raw).digest('hex');
}

/** The subject common name (the last CN when there are several, as Go reads it). */
export function commonNameOf(cert: X509Certificate): string {
  const values = cert.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice(3));
  const last = values.at(-1) ?? '';
  if (last.startsWith('"')) {
    try {
      return JSON.parse(last) as string;
    } catch {
      return last;
    }
  }
  return last;
}

/** True when `leaf` was signed by `issuer` and is inside its validity window at `now`. */
export function isIssuedBy(leaf: X509Certificate, issuer: X509Certificate, now: number = Date.now()): boolean {
  if (!leaf.checkIssued(issuer)) return false;
  if (!leaf.verify(issuer.publicKey)) return false;
  return Date.parse(leaf.validFrom) <= now && now <= Date.parse(leaf.validTo);
}
