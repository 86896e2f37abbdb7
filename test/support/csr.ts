// Test keys and certificate signing requests: RSA requests made with node-forge's PKCS#10
// support, EC (P-256) requests assembled with node-forge's ASN.1 layer and signed by node:crypto.

import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import forge from 'node-forge';

/** A private key as PEM (PKCS#8) with its KeyObject. */
export interface TestKey {
  keyPem: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function newKey(type: 'rsa' | 'ec' = 'rsa'): TestKey {
  const { privateKey, publicKey } = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), privateKey, publicKey };
}

export interface CsrOptions {
  /** DNS names and IP addresses for a subjectAltName extension request. */
  dnsNames?: string[];
  ips?: string[];
}

/** A PEM CSR for `key` with subject CN = commonName. */
export function createCsr(key: TestKey, commonName: string, opts: CsrOptions = {}): string {
  return key.privateKey.asymmetricKeyType === 'rsa' ? rsaCsr(key, commonName, opts) : ecCsr(key, commonName, opts);
}

function altNames(opts: CsrOptions): { type: number; value?: string; ip?: string }[] {
  return [...(opts.dnsNames ?? []).map((value) => ({ type: 2, value })), ...(opts.ips ?? []).map((ip) => ({ type: 7, ip }))];
}

function rsaCsr(key: TestKey, commonName: string, opts: CsrOptions): string {
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(key.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  csr.setSubject([{ name: 'commonName', value: commonName }]);
  const names = altNames(opts);
  if (names.length > 0) csr.setAttributes([{ name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames: names }] }]);
  csr.sign(forge.pki.privateKeyFromPem(key.keyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

function ecCsr(key: TestKey, commonName: string, opts: CsrOptions): string {
  const { asn1 } = forge;
  const U = asn1.Class.UNIVERSAL;
  const seq = (v: forge.asn1.Asn1[]) => asn1.create(U, asn1.Type.SEQUENCE, true, v);
  const oid = (o: string) => asn1.create(U, asn1.Type.OID, false, asn1.oidToDer(o).getBytes());
  const subject = seq([asn1.create(U, asn1.Type.SET, true, [seq([oid('2.5.4.3'), asn1.create(U, asn1.Type.UTF8, false, forge.util.encodeUtf8(commonName))])])]);
  const spki = asn1.fromDer(key.publicKey.export({ type: 'spki', format: 'der' }).toString('binary'));
  const attributes: forge.asn1.Asn1[] = [];
  const names = altNames(opts);
  if (names.length > 0) {
    const cert = forge.pki.createCertificate();
    cert.setExtensions([{ name: 'subjectAltName', altNames: names }]);
    const pki = forge.pki as unknown as { certificateExtensionsToAsn1(extensions: unknown): forge.asn1.Asn1 };
    const extensions = (pki.certificateExtensionsToAsn1((cert as unknown as { extensions: unknown }).extensions).value as forge.asn1.Asn1[])[0]!;
    attributes.push(seq([oid('1.2.840.113549.1.9.14'), asn1.create(U, asn1.Type.SET, true, [extensions])]));
  }
  const info = seq([
    asn1.create(U, asn1.Type.INTEGER, false, '\x00'),
    subject,
    spki,
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, attributes),
  ]);
  const signature = sign('sha256', Buffer.from(asn1.toDer(info).getBytes(), 'binary'), key.privateKey);
  const csr = seq([info, seq([oid('1.2.840.10045.4.3.2')]), asn1.create(U, asn1.Type.BITSTRING, false, `\x00${signature.toString('binary')}`)]);
  const der = Buffer.from(asn1.toDer(csr).getBytes(), 'binary');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
}
