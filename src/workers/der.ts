// DER building blocks for certificate signing, over node-forge's ASN.1 layer: parse without
// touching BIT STRING contents, build the few node types a certificate needs, PEM in and out.

import forge from 'node-forge';

const { asn1 } = forge;
export type Asn1 = forge.asn1.Asn1;

const U = asn1.Class.UNIVERSAL;
const T = asn1.Type;

/** Parses DER strictly; BIT STRINGs keep their raw content (unused-bits byte first). */
export function parseDer(der: Buffer): Asn1 {
  const fromDer = asn1.fromDer as unknown as (bytes: string, options: object) => Asn1;
  return fromDer(der.toString('binary'), { strict: true, parseAllBytes: true, decodeBitStrings: false });
}

export function toDer(node: Asn1): Buffer {
  return Buffer.from(asn1.toDer(node).getBytes(), 'binary');
}

export function children(node: Asn1 | undefined): Asn1[] {
  return Array.isArray(node?.value) ? node.value : [];
}

/** The raw bytes of a primitive node. */
export function bytesOf(node: Asn1 | undefined): Buffer {
  return typeof node?.value === 'string' ? Buffer.from(node.value, 'binary') : Buffer.alloc(0);
}

export function oidOf(node: Asn1 | undefined): string {
  return typeof node?.value === 'string' && node.type === T.OID ? asn1.derToOid(node.value) : '';
}

export const seq = (items: Asn1[]): Asn1 => asn1.create(U, T.SEQUENCE, true, items);
export const oid = (dotted: string): Asn1 => asn1.create(U, T.OID, false, asn1.oidToDer(dotted).getBytes());
export const nul = (): Asn1 => asn1.create(U, T.NULL, false, '');
export const bool = (value: boolean): Asn1 => asn1.create(U, T.BOOLEAN, false, value ? '\xff' : '\x00');
export const integer = (bytes: Buffer): Asn1 => asn1.create(U, T.INTEGER, false, bytes.toString('binary'));
export const octets = (bytes: Buffer): Asn1 => asn1.create(U, T.OCTETSTRING, false, bytes.toString('binary'));
/** A BIT STRING of whole bytes (no unused bits). */
export const bits = (bytes: Buffer): Asn1 => asn1.create(U, T.BITSTRING, false, `\x00${bytes.toString('binary')}`);
/** A BIT STRING from its encoded content: the unused-bits count, then the bits. */
export const bitsRaw = (content: Buffer): Asn1 => asn1.create(U, T.BITSTRING, false, content.toString('binary'));
/** `[n] EXPLICIT inner`. */
export const explicit = (n: number, inner: Asn1): Asn1 => asn1.create(asn1.Class.CONTEXT_SPECIFIC, n, true, [inner]);
/** `[n] IMPLICIT` primitive bytes. */
export const implicitBytes = (n: number, bytes: Buffer): Asn1 => asn1.create(asn1.Class.CONTEXT_SPECIFIC, n, false, bytes.toString('binary'));

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
export function time(date: Date): Asn1 {
  return date.getUTCFullYear() < 2050
    ? asn1.create(U, T.UTCTIME, false, asn1.dateToUtcTime(date))
    : asn1.create(U, T.GENERALIZEDTIME, false, asn1.dateToGeneralizedTime(date));
}

/** `Extension ::= SEQUENCE { extnID, critical DEFAULT FALSE, extnValue OCTET STRING }`. */
export function extension(id: string, critical: boolean, value: Asn1): Asn1 {
  return seq([oid(id), ...(critical ? [bool(true)] : []), octets(toDer(value))]);
}

/** The DER of the first PEM block of one of the given labels, or undefined. */
export function pemToDer(pem: string, labels: readonly string[]): Buffer | undefined {
  for (const label of labels) {
    const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
    if (match) return Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
  }
  return undefined;
}

export function derToPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The value of the first attribute with this OID in an X.501 Name, as UTF-8 text. */
export function nameAttribute(name: Asn1, attributeOid: string): string | undefined {
  for (const rdn of children(name)) {
    for (const pair of children(rdn)) {
      const [type, value] = children(pair);
      if (oidOf(type) === attributeOid) return bytesOf(value).toString('utf8');
    }
  }
  return undefined;
}
