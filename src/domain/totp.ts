// TOTP as OpenZiti uses it (dgoogauth): base32 secrets of 10 bytes, HMAC-SHA1, 6 digits, 30 s
// steps, the current step ±2 accepted, and otpauth provisioning URLs. Pure: the caller passes
// the random bytes and the time.

import { createGuardrails, verifySync } from 'otplib';

/** `edge.totp.hostname` of upstream: the issuer shown by authenticator apps. */
export const TOTP_ISSUER = 'openziti.io';
/** Bytes of a new TOTP secret (16 base32 characters). */
export const SECRET_BYTES = 10;
/** Recovery codes per enrollment, and the random bytes behind each one. */
export const RECOVERY_CODE_COUNT = 20;
export const RECOVERY_CODE_BYTES = 8;
/** Steps accepted on either side of the current one (dgoogauth WindowSize 5). */
export const TOTP_WINDOW_STEPS = 2;
export const TOTP_PERIOD_SECONDS = 30;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
// otplib refuses secrets under 16 bytes by default; upstream secrets have 10.
const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: SECRET_BYTES });

/** RFC 4648 base32 (standard alphabet) without padding. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** A TOTP secret from SECRET_BYTES random bytes. */
export function secretFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== SECRET_BYTES) throw new Error(`a TOTP secret needs ${SECRET_BYTES} bytes`);
  return base32(bytes);
}

/** A recovery code: the first 6 base32 characters of RECOVERY_CODE_BYTES random bytes. */
export function recoveryCodeFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== RECOVERY_CODE_BYTES) throw new Error(`a recovery code needs ${RECOVERY_CODE_BYTES} bytes`);
  return base32(bytes).slice(0, 6);
}

/** dgoogauth accepts only 6 characters starting with a digit that parse as a number. */
export function isTotpShaped(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

/** True when `code` is the TOTP of `secret` at `nowMs` or within ±TOTP_WINDOW_STEPS steps. */
export function verifyTotp(secret: string, code: string, nowMs: number): boolean {
  if (!isTotpShaped(code)) return false;
  try {
    const result = verifySync({
      secret,
      token: code,
      epoch: Math.floor(nowMs / 1000),
      // In seconds; a multiple of the period, so it spans exactly ±TOTP_WINDOW_STEPS steps.
      epochTolerance: TOTP_WINDOW_STEPS * TOTP_PERIOD_SECONDS,
      guardrails: GUARDRAILS,
    });
    return result.valid;
  } catch {
    return false;
  }
}

/**
 * `otpauth://totp/<issuer>:<name>?issuer=<issuer>&secret=<secret>` as dgoogauth builds it:
 * query keys in alphabetical order and escaped as Go's url.Values does; the name is not escaped.
 */
export function provisioningUrl(identityName: string, secret: string, issuer: string = TOTP_ISSUER): string {
  return `otpauth://totp/${issuer}:${identityName}?issuer=${queryEscape(issuer)}&secret=${queryEscape(secret)}`;
}

/** Go's url.QueryEscape: everything but A-Z a-z 0-9 - _ . ~ is %-escaped, space as '+'. */
function queryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}
