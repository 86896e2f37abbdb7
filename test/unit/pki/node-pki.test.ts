// Tests for the node PKI: file creation and modes, reuse on restart, certificate validity
// against the CA (including a real HTTPS handshake), and operator-supplied TLS file checks.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ensureNodePki, loadTlsFiles, type NodePki } from '../../../src/pki/node-pki.js';

let root: string;
let dir: string;
let pki: NodePki;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'weft-pki-'));
  dir = join(root, 'pki');
  pki = await ensureNodePki({ dir, hostnames: ['localhost', 'weft.test'], ips: ['127.0.0.1', '::1'] });
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

function get(port: number, ca?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', servername: 'localhost', port, path: '/', ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

describe('ensureNodePki', () => {
  it('creates the directory 0o700 and all four files 0o600', async () => {
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    for (const name of ['ca.pem', 'ca.key.pem', 'server.pem', 'server.key.pem']) {
      assert.equal((await stat(join(dir, name))).mode & 0o777, 0o600, name);
    }
    assert.equal(pki.caPath, join(dir, 'ca.pem'));
    assert.equal(pki.certPath, join(dir, 'server.pem'));
    assert.equal(pki.keyPath, join(dir, 'server.key.pem'));
  });

  it('returns the same CA and server certificate on a second call', async () => {
    const again = await ensureNodePki({ dir, hostnames: ['other'], ips: [] });
    assert.deepEqual(again, pki);
  });

  it('makes a CA certificate with the expected subject and constraints', () => {
    const ca = new X509Certificate(pki.caCertPem);
    assert.equal(ca.ca, true);
    assert.match(ca.subject, /CN=Weft Controller Root CA/);
    assert.match(ca.subject, /O=Weft/);
    assert.equal(ca.subject, ca.issuer);
    assert.ok(ca.verify(ca.publicKey));
    const years = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / (365.25 * 24 * 3600 * 1000);
    assert.ok(years > 9.9 && years < 10.1, `CA validity ${years} years`);
  });

  it('makes a server certificate signed by the CA covering the hostnames and IPs', () => {
    const ca = new X509Certificate(pki.caCertPem);
    const leaf = new X509Certificate(pki.serverCertPem);
    assert.equal(leaf.ca, false);
    assert.ok(leaf.verify(ca.publicKey));
    assert.ok(leaf.checkIssued(ca));
    assert.equal(leaf.checkHost('localhost'), 'localhost');
    assert.equal(leaf.checkHost('weft.test'), 'weft.test');
    assert.equal(leaf.checkHost('evil.test'), undefined);
    assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(leaf.checkIP('10.9.9.9'), undefined);
    assert.match(leaf.subject, /CN=localhost/);
    assert.deepEqual([...(leaf.keyUsage ?? [])].sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    assert.equal(pki.serverCertPem.match(/BEGIN CERTIFICATE/g)?.length, 1);
  });

  it('serves HTTPS that a client trusting only ca.pem accepts, and others reject', async () => {
    const server = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (_req, res) => {
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      assert.equal(await get(port, pki.caCertPem), 'ok');
      await assert.rejects(get(port), (err: NodeJS.ErrnoException) => /CERT|VERIFY|SIGN/.test(err.code ?? ''));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('loadTlsFiles', () => {
  it('loads a matching certificate and key', async () => {
    const files = await loadTlsFiles(pki.certPath, pki.keyPath);
    assert.equal(files.certPem, pki.serverCertPem);
    assert.equal(files.keyPem, pki.serverKeyPem);
  });

  it('rejects a key that does not match the certificate, naming the key file', async () => {
    const caKeyPath = join(dir, 'ca.key.pem');
    await assert.rejects(loadTlsFiles(pki.certPath, caKeyPath), (err: Error) => {
      assert.ok(err.message.includes(caKeyPath));
      assert.match(err.message, /does not match/);
      return true;
    });
  });

  it('rejects unreadable or unparsable files, naming the file', async () => {
    const missing = join(root, 'missing.pem');
    await assert.rejects(loadTlsFiles(missing, pki.keyPath), (err: Error) => err.message.includes(missing));
    const junk = join(root, 'junk.pem');
    await writeFile(junk, 'not a pem');
    await assert.rejects(loadTlsFiles(junk, pki.keyPath), (err: Error) => err.message.includes(junk));
    await assert.rejects(loadTlsFiles(pki.certPath, junk), (err: Error) => err.message.includes(junk));
  });
});
