// Keys derived from the cluster secret: sealing the cluster CA for the trip over NATS
// (AES-256-GCM; NATS only ever carries ciphertext) and a verifier that tells a node whose
// secret differs from the cluster's. Pure crypto; no I/O.

import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** The smallest cluster secret accepted (characters). */
export const MIN_SECRET_LENGTH = 32;

const SEAL_INFO = 'weft cluster seal v1';
const VERIFY_INFO = 'weft cluster verifier v1';

function derive(secret: string, clusterId: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from(clusterId, 'utf8'), info, 32));
}

/** Encrypts and authenticates `plain` for this cluster: base64url(iv | tag | ciphertext). */
export function seal(secret: string, clusterId: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', derive(secret, clusterId, SEAL_INFO), iv);
  cipher.setAAD(Buffer.from(clusterId, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens what seal() made; throws when the secret, the cluster id or the data differ. */
export function unseal(secret: string, clusterId: string, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 28) throw new Error('sealed data is too short');
  const decipher = createDecipheriv('aes-256-gcm', derive(secret, clusterId, SEAL_INFO), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(clusterId, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** A value every holder of the secret computes alike, and nobody without it can. */
export function verifier(secret: string, clusterId: string): string {
  return createHmac('sha256', derive(secret, clusterId, VERIFY_INFO)).update(clusterId).digest('base64url');
}

/** True when `secret` is the one the cluster's verifier was made with. */
export function secretMatches(secret: string, clusterId: string, expected: string): boolean {
  const got = Buffer.from(verifier(secret, clusterId));
  const want = Buffer.from(expected);
  return got.length === want.length && timingSafeEqual(got, want);
}
