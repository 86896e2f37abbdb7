// The node's own PKI: a self-signed root CA and a TLS server certificate, created on first
// start under <dir> and reloaded unchanged afterwards; plus loading operator-supplied TLS files.
import { generateKeyPair, generateKeyPairSync, randomBytes, createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdir, chmod, readFile, writeFile, rename, access } from 'node:fs/promises';
import { join } from 'node:path';
import forge from 'node-forge';

/** The node's CA and server key material, in PEM, with where the trust anchor and leaf live. */
export interface NodePki {
  /** The root CA certificate clients should trust (also at caPath). */
  caCertPem: string;
  caKeyPem: string;
  /** The server leaf certificate only, no chain (also at certPath). */
  serverCertPem: string;
  /** The server private key (also at keyPath). */
  serverKeyPem: string;
  caPath: string;
  certPath: string;
  keyPath: string;
}

/** Where the node PKI lives and what the server certificate must cover. */
export interface NodePkiOptions {
  dir: string;
  hostnames: string[];
  ips: string[];
  /** A CA to use instead of creating one (a cluster's): kept under dir, never replaced. */
  ca?: TlsFiles;
}

/** A certificate and key pair read from operator-supplied files. */
export interface TlsFiles {
  certPem: string;
  keyPem: string;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const CA_YEARS = 10;
const SERVER_YEARS = 2;
const BACKDATE_MS = 5 * 60 * 1000;

interface KeyPairPem {
  privateKeyPem: string;
  publicKeyPem: string;
}

interface PkiPaths {
  caPath: string;
  caKeyPath: string;
  certPath: string;
  keyPath: string;
}

function pkiPaths(dir: string): PkiPaths {
  return {
    caPath: join(dir, 'ca.pem'),
    caKeyPath: join(dir, 'ca.key.pem'),
    certPath: join(dir, 'server.pem'),
    keyPath: join(dir, 'server.key.pem'),
  };
}

/** Creates the node PKI in opts.dir on first call; later calls load and return the same files. */
export async function ensureNodePki(opts: NodePkiOptions): Promise<NodePki> {
  const paths = pkiPaths(opts.dir);
  await mkdir(opts.dir, { recursive: true, mode: DIR_MODE });
  await chmod(opts.dir, DIR_MODE);
  const haveServer = await allExist([paths.certPath, paths.keyPath]);
  // A first start makes its keys on libuv's threads, the server's and the CA's at once.
  const serverPair = haveServer ? undefined : newKeyPairAsync();
  serverPair?.catch(() => undefined);
  const ca = (await allExist([paths.caPath, paths.caKeyPath]))
    ? await loadPair(paths.caPath, paths.caKeyPath)
    : await storeCa(paths, opts.ca ?? caFromPair(await newKeyPairAsync()));
  if (opts.ca && opts.ca.certPem.trim() !== ca.certPem.trim()) {
    throw new Error(`the CA in ${paths.caPath} is not the cluster's CA: this data directory belongs to another cluster`);
  }
  const server = serverPair
    ? await createServer(paths, ca, opts, await serverPair)
    : await loadPair(paths.certPath, paths.keyPath);
  return {
    caCertPem: ca.certPem,
    caKeyPem: ca.keyPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    caPath: paths.caPath,
    certPath: paths.certPath,
    keyPath: paths.keyPath,
  };
}

/** Reads an operator-supplied certificate and key, checking both parse and that they match. */
export async function loadTlsFiles(certPath: string, keyPath: string): Promise<TlsFiles> {
  return loadPair(certPath, keyPath, 'TLS');
}

/** A new self-signed root CA, in memory. */
export function generateCa(): TlsFiles {
  return caFromPair(newKeyPair());
}

/** A self-signed root CA certificate for a key pair. */
function caFromPair(pair: KeyPairPem): TlsFiles {
  const cert = newCertificate(pair, CA_YEARS);
  const subject = [
    { name: 'commonName', value: 'Weft Controller Root CA' },
    { name: 'organizationName', value: 'Weft' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signCertificate(cert, pair.privateKeyPem);
  return { certPem: forge.pki.certificateToPem(cert), keyPem: pair.privateKeyPem };
}

async function storeCa(paths: PkiPaths, ca: TlsFiles): Promise<TlsFiles> {
  await writeOwnerOnly(paths.caKeyPath, ca.keyPem);
  await writeOwnerOnly(paths.caPath, ca.certPem);
  return ca;
}

async function createServer(paths: PkiPaths, ca: TlsFiles, opts: NodePkiOptions, pair: KeyPairPem): Promise<TlsFiles> {
  const commonName = opts.hostnames[0] ?? opts.ips[0];
  if (commonName === undefined) throw new Error('ensureNodePki: at least one hostname or IP is required');
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = newCertificate(pair, SERVER_YEARS);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
    { name: 'subjectAltName', altNames: altNames(opts) },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signCertificate(cert, ca.keyPem);
  const result = { certPem: forge.pki.certificateToPem(cert), keyPem: pair.privateKeyPem };
  await writeOwnerOnly(paths.keyPath, result.keyPem);
  await writeOwnerOnly(paths.certPath, result.certPem);
  return result;
}

function altNames(opts: NodePkiOptions): Array<{ type: number; value?: string; ip?: string }> {
  const dns = opts.hostnames.map((value) => ({ type: 2, value }));
  const ips = opts.ips.map((ip) => ({ type: 7, ip }));
  return [...dns, ...ips];
}

const KEY_OPTIONS = {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
} as const;

function newKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', KEY_OPTIONS);
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** A new key pair made on a libuv thread (the event loop goes on meanwhile). */
async function newKeyPairAsync(): Promise<KeyPairPem> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', KEY_OPTIONS);
  return { privateKeyPem: privateKey, publicKeyPem: publicKey };
}

/** Signs the certificate (SHA-256 with RSA) with Node's crypto: node-forge's own RSA in
 * JavaScript took a quarter of a second a signature. */
function signCertificate(cert: forge.pki.Certificate, keyPem: string): void {
  cert.signatureOid = cert.siginfo.algorithmOid = forge.pki.oids.sha256WithRSAEncryption!;
  // getTBSCertificate is node-forge's, missing from its type declarations.
  const tbsAsn1 = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(cert);
  (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbsAsn1;
  const tbs = Buffer.from(forge.asn1.toDer(tbsAsn1).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, keyPem).toString('binary');
}

/** A certificate shell: public key, serial and validity; subject, issuer and extensions come later. */
function newCertificate(pair: KeyPairPem, years: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKeyPem);
  cert.serialNumber = randomSerial();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + years);
  cert.validity.notAfter = notAfter;
  return cert;
}

/** 16 random bytes as hex, top bit clear (positive) and second-highest set (minimal DER). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString('hex');
}

/** Writes via a temporary file and rename, so a crash never leaves a half-written file. */
async function writeOwnerOnly(path: string, data: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, data, { mode: FILE_MODE });
  await chmod(tmp, FILE_MODE);
  await rename(tmp, path);
}

async function allExist(paths: string[]): Promise<boolean> {
  for (const path of paths) {
    try {
      await access(path);
    } catch {
      return false;
    }
  }
  return true;
}

/** Reads a certificate and key file, validating both; errors name the file but never its content. */
async function loadPair(certPath: string, keyPath: string, label = 'PKI'): Promise<TlsFiles> {
  const certPem = await readText(certPath, `${label} certificate`);
  const keyPem = await readText(keyPath, `${label} key`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new Error(`${label} certificate file ${certPath} does not contain a valid PEM certificate`);
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    throw new Error(`${label} key file ${keyPath} does not contain a valid PEM private key`);
  }
  if (!cert.checkPrivateKey(key)) {
    throw new Error(`${label} key file ${keyPath} does not match the certificate in ${certPath}`);
  }
  return { certPem, keyPem };
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new Error(`${what} file ${path} could not be read (${code})`);
  }
}
