// Real test certificates made with node-forge: CAs (basicConstraints CA:TRUE), leaves signed by
// a CA, and plain self-signed non-CA certificates. Keys are RSA 2048 made by node:crypto.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** A certificate with its private key, both PEM. */
export interface TestCert {
  certPem: string;
  keyPem: string;
}

export interface CertOptions {
  /** Days from now the certificate starts and ends being valid (default -1 .. 365). */
  fromDays?: number;
  toDays?: number;
  /** Subject alternative names of a leaf: URIs and email addresses. */
  uris?: string[];
  emails?: string[];
}

function rsaKeys(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; keyPem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), keyPem };
}

function certificate(publicKey: forge.pki.PublicKey, opts: CertOptions): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  const day = 24 * 3600_000;
  cert.validity.notBefore = new Date(Date.now() + (opts.fromDays ?? -1) * day);
  cert.validity.notAfter = new Date(Date.now() + (opts.toDays ?? 365) * day);
  return cert;
}

/** A self-signed CA certificate with the given common name. */
export function makeCa(commonName: string, opts: CertOptions = {}): TestCert {
  const keys = rsaKeys();
  const cert = certificate(keys.publicKey, opts);
  const subject = [{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Weft Tests' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** A client leaf certificate with the given common name, signed by `ca`. */
export function makeLeaf(ca: TestCert, commonName: string, opts: CertOptions = {}): TestCert {
  const keys = rsaKeys();
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = certificate(keys.publicKey, opts);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true },
    ...subjectAltName(opts),
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.keyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}

/** The subjectAltName extension for the URIs (type 6) and emails (type 1) asked for, if any. */
function subjectAltName(opts: CertOptions): { name: string; altNames: { type: number; value: string }[] }[] {
  const altNames = [...(opts.uris ?? []).map((value) => ({ type: 6, value })), ...(opts.emails ?? []).map((value) => ({ type: 1, value }))];
  return altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : [];
}

/** A self-signed certificate that is not a CA (basicConstraints CA:FALSE). */
export function makeSelfSigned(commonName: string, opts: CertOptions = {}): TestCert {
  const keys = rsaKeys();
  const cert = certificate(keys.publicKey, opts);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([{ name: 'basicConstraints', cA: false, critical: true }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.keyPem };
}
