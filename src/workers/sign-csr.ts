// Certificate signing on the worker pool: signs a CSR with the controller CA (`signCsr`), or
// signs a new key for an existing certificate's subject (`extendCertificate`). The certificate is
// built with node-forge's ASN.1 layer (RSA and EC request keys alike) and signed natively with
// node:crypto. Keys arrive as PEM in the task and are cached per thread; nothing is logged.

import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import {
  bits, bitsRaw, bytesOf, children, derToPem, explicit, extension, implicitBytes, integer, nameAttribute, nul, octets, oid,
  oidOf, parseDer, pemToDer, seq, time, toDer, type Asn1,
} from './der.js';
import type { CertificateUsage, ExtendCertificateTask, SignCsrTask, SignedCertificate } from './tasks.js';

const OID = {
  commonName: '2.5.4.3',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  subjectKeyId: '2.5.29.14',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  authorityKeyId: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** Hash of each accepted CSR signature algorithm (null = the algorithm hashes itself). */
const CSR_SIGNATURE_HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** Clock-skew allowance: certificates are valid from five minutes ago. */
const BACKDATE_MS = 5 * 60_000;

/** Thrown for a request the CA refuses; the task answers it as `{ok: false}`. */
class Refusal extends Error {
  constructor(readonly reason: 'csr' | 'commonName', message: string) {
    super(message);
  }
}

/** What the CA contributes to every certificate it signs, derived once per CA. */
interface Ca {
  key: KeyObject;
  subject: Asn1;
  keyId: Buffer;
  algorithm: Asn1;
  hash: string | null;
}

const caCache = new Map<string, Ca>();

/** Signs a CSR: the subject and SANs come from the request. */
export function signCsr(task: SignCsrTask): SignedCertificate {
  return answer(() => {
    const csr = parseCsr(task.csrPem);
    const commonName = nameAttribute(csr.subject, OID.commonName);
    if (task.commonName !== undefined && commonName !== task.commonName) {
      throw new Refusal('commonName', `the CSR common name must be ${task.commonName}`);
    }
    return issue(task, csr.subject, csr.spki, csr.subjectAltName);
  });
}

/** Signs a new key for an existing certificate: subject and SANs come from the old one. */
export function extendCertificate(task: ExtendCertificateTask): SignedCertificate {
  return answer(() => {
    const csr = parseCsr(task.csrPem);
    const old = parseCertificate(task.oldCertPem);
    return issue(task, old.subject, csr.spki, old.subjectAltName);
  });
}

/** Refusals become `{ok: false}`; anything else (a broken CA) fails the task. */
function answer(run: () => SignedCertificate): SignedCertificate {
  try {
    return run();
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.reason, message: err.message };
    throw err;
  }
}

interface Request {
  caCertPem: string;
  caKeyPem: string;
  validityDays: number;
  usage: CertificateUsage;
}

function issue(req: Request, subject: Asn1, spki: Asn1, subjectAltName: Asn1 | undefined): SignedCertificate {
  const ca = caOf(req.caCertPem, req.caKeyPem);
  const spkiDer = toDer(spki);
  const keyType = createPublicKey({ key: spkiDer, format: 'der', type: 'spki' }).asymmetricKeyType;
  const notBefore = new Date(Date.now() - BACKDATE_MS);
  const notAfter = new Date(notBefore.getTime() + BACKDATE_MS + req.validityDays * 86_400_000);
  const tbs = seq([
    explicit(0, integer(Buffer.from([2]))),
    integer(serialNumber()),
    ca.algorithm,
    ca.subject,
    seq([time(notBefore), time(notAfter)]),
    subject,
    spki,
    explicit(3, seq(extensions(req.usage, keyType === 'rsa', subjectKeyId(spki), ca.keyId, subjectAltName))),
  ]);
  const signature = sign(ca.hash, toDer(tbs), ca.key);
  const der = toDer(seq([tbs, ca.algorithm, bits(signature)]));
  return {
    ok: true,
    certPem: derToPem(der, 'CERTIFICATE'),
    fingerprint: createHash('sha1').update(der).digest('hex'),
    publicKeyPrint: createHash('sha256').update(spkiDer).digest('hex'),
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
  };
}

function extensions(usage: CertificateUsage, rsa: boolean, keyId: Buffer, caKeyId: Buffer, san: Asn1 | undefined): Asn1[] {
  // digitalSignature (bit 0), plus keyEncipherment (bit 2) for RSA keys.
  const keyUsage = rsa ? Buffer.from([0x05, 0xa0]) : Buffer.from([0x07, 0x80]);
  const list = [
    extension(OID.basicConstraints, true, seq([])),
    extension(OID.keyUsage, true, bitsRaw(keyUsage)),
    extension(OID.extKeyUsage, false, seq([oid(usage === 'server' ? OID.serverAuth : OID.clientAuth)])),
    extension(OID.subjectKeyId, false, octets(keyId)),
    extension(OID.authorityKeyId, false, seq([implicitBytes(0, caKeyId)])),
  ];
  if (san) list.push(san);
  return list;
}

interface ParsedCsr {
  subject: Asn1;
  spki: Asn1;
  subjectAltName?: Asn1;
}

/** Parses a PKCS#10 request and checks its self-signature; anything malformed is a refusal. */
function parseCsr(pem: string): ParsedCsr {
  try {
    return parseCsrUnchecked(pem);
  } catch (err) {
    throw err instanceof Refusal ? err : new Refusal('csr', 'the CSR could not be parsed');
  }
}

function parseCsrUnchecked(pem: string): ParsedCsr {
  const der = typeof pem === 'string' ? pemToDer(pem, ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST']) : undefined;
  if (!der) throw new Refusal('csr', 'the CSR must be a PEM encoded certificate request');
  const [info, algorithm, signatureBits] = children(parseDer(der));
  const [, subject, spki, attributes] = children(info);
  if (!info || !subject || !spki || !algorithm || !signatureBits) throw new Refusal('csr', 'the CSR is incomplete');
  const hash = CSR_SIGNATURE_HASHES[oidOf(children(algorithm)[0])];
  if (hash === undefined) throw new Refusal('csr', 'the CSR signature algorithm is not supported');
  const key = createPublicKey({ key: toDer(spki), format: 'der', type: 'spki' });
  const signature = bytesOf(signatureBits).subarray(1);
  if (!verify(hash, toDer(info), key, signature)) throw new Refusal('csr', 'the CSR signature does not verify');
  return { subject, spki, subjectAltName: requestedSubjectAltName(attributes) };
}

/** The subjectAltName extension of the request's extensionRequest attribute, kept as sent. */
function requestedSubjectAltName(attributes: Asn1 | undefined): Asn1 | undefined {
  for (const attribute of children(attributes)) {
    const [type, values] = children(attribute);
    if (oidOf(type) !== OID.extensionRequest) continue;
    return findExtension(children(values)[0], OID.subjectAltName);
  }
  return undefined;
}

function findExtension(list: Asn1 | undefined, id: string): Asn1 | undefined {
  return children(list).find((ext) => oidOf(children(ext)[0]) === id);
}

interface ParsedCertificate {
  subject: Asn1;
  spki: Asn1;
  extensions?: Asn1;
  subjectAltName?: Asn1;
}

/** Parses a certificate (the CA's, or the one being extended). */
function parseCertificate(pem: string): ParsedCertificate {
  const der = pemToDer(pem, ['CERTIFICATE']);
  if (!der) throw new Refusal('csr', 'the certificate must be PEM encoded');
  const fields = children(children(parseDer(der))[0]);
  const offset = fields[0]?.tagClass === 0x80 && fields[0].type === 0 ? 1 : 0;
  const subject = fields[offset + 4];
  const spki = fields[offset + 5];
  if (!subject || !spki) throw new Refusal('csr', 'the certificate is incomplete');
  const extensionsNode = fields.slice(offset + 6).find((f) => f.tagClass === 0x80 && f.type === 3);
  const extensions = children(extensionsNode)[0];
  return { subject, spki, extensions, subjectAltName: findExtension(extensions, OID.subjectAltName) };
}

function caOf(certPem: string, keyPem: string): Ca {
  const cacheKey = `${certPem}\n${keyPem}`;
  let ca = caCache.get(cacheKey);
  if (!ca) {
    const cert = parseCertificate(certPem);
    const key = createPrivateKey(keyPem);
    const stated = findExtension(cert.extensions, OID.subjectKeyId);
    const keyId = stated ? bytesOf(parseDer(bytesOf(children(stated).at(-1)))) : subjectKeyId(cert.spki);
    ca = { key, subject: cert.subject, keyId, ...signatureAlgorithm(key) };
    if (caCache.size >= 4) caCache.clear();
    caCache.set(cacheKey, ca);
  }
  return ca;
}

function signatureAlgorithm(key: KeyObject): { algorithm: Asn1; hash: string | null } {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return { algorithm: seq([oid('1.2.840.113549.1.1.11'), nul()]), hash: 'sha256' };
    case 'ec':
      if (curve === 'prime256v1') return { algorithm: seq([oid('1.2.840.10045.4.3.2')]), hash: 'sha256' };
      if (curve === 'secp384r1') return { algorithm: seq([oid('1.2.840.10045.4.3.3')]), hash: 'sha384' };
      if (curve === 'secp521r1') return { algorithm: seq([oid('1.2.840.10045.4.3.4')]), hash: 'sha512' };
      break;
    case 'ed25519':
      return { algorithm: seq([oid('1.3.101.112')]), hash: null };
  }
  throw new Error(`unsupported CA key: ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''}`.trim());
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function subjectKeyId(spki: Asn1): Buffer {
  const publicKeyBits = bytesOf(children(spki)[1]).subarray(1);
  return createHash('sha1').update(publicKeyBits).digest();
}

/** 16 random bytes, positive and without a leading zero byte. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes;
}
