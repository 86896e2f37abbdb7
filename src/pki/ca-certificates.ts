// PEM certificate helpers of the credential actors: split PEM text into blocks, parse them, and
// read what the CA and signer rules need (fingerprint, names, issuance). No storage.

import { createHash, X509Certificate } from 'node:crypto';
import type { CertificateNames } from '../domain/external-id-claim.js';

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
  return last.includes('\\') ? unescapeDnValue(last) : last;
}

/** RFC 4514 escapes as Node writes them: `\,` for a special character, `\0A` for a byte. */
function unescapeDnValue(value: string): string {
  const bytes: Buffer[] = [];
  for (let i = 0; i < value.length; i++) {
    const hex = value[i] === '\\' ? /^[0-9A-Fa-f]{2}/.exec(value.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(Buffer.from([parseInt(hex[0], 16)]));
      i += 2;
    } else {
      if (value[i] === '\\' && i + 1 < value.length) i++;
      const code = value.codePointAt(i)!;
      const char = String.fromCodePoint(code);
      bytes.push(Buffer.from(char, 'utf8'));
      i += char.length - 1;
    }
  }
  return Buffer.concat(bytes).toString('utf8');
}

/** The names an externalIdClaim reads: subject CN, SAN URIs and SAN emails, in order. */
export function certificateNamesOf(cert: X509Certificate): CertificateNames {
  const names: CertificateNames = { commonName: commonNameOf(cert), uris: [], emails: [] };
  for (const { type, value } of subjectAltNames(cert.subjectAltName ?? '')) {
    if (type === 'URI') names.uris.push(value);
    else if (type === 'email') names.emails.push(value);
  }
  return names;
}

/** Node's subjectAltName text: `TYPE:value` entries joined by `, `; a value holding special
 * characters (a comma, a quote) is written as a JSON string literal. */
export function subjectAltNames(text: string): { type: string; value: string }[] {
  const out: { type: string; value: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(':', i);
    if (colon < 0) break;
    const type = text.slice(i, colon);
    let end: number;
    let value: string;
    if (text[colon + 1] === '"') {
      end = colon + 2;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      end += 1;
      try {
        value = JSON.parse(text.slice(colon + 1, end)) as string;
      } catch {
        value = text.slice(colon + 2, end - 1);
      }
    } else {
      end = text.indexOf(', ', colon + 1);
      if (end < 0) end = text.length;
      value = text.slice(colon + 1, end);
    }
    out.push({ type, value });
    i = text.startsWith(', ', end) ? end + 2 : end;
  }
  return out;
}

/** True when `leaf` was signed by `issuer` and is inside its validity window at `now`. */
export function isIssuedBy(leaf: X509Certificate, issuer: X509Certificate, now: number = Date.now()): boolean {
  if (!leaf.checkIssued(issuer)) return false;
  if (!leaf.verify(issuer.publicKey)) return false;
  return Date.parse(leaf.validFrom) <= now && now <= Date.parse(leaf.validTo);
}
