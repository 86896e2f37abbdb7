// The certificate-signing worker task with real keys: RSA and EC requests, SANs, EKUs, refusals
// (tampered or malformed requests, a wrong common name), extension of an existing certificate,
// and the same task through the Piscina pool.

import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { extendCertificate, signCsr } from '../../../src/workers/sign-csr.js';
import { WorkerPool } from '../../../src/workers/pool.js';
import type { SignedCertificate } from '../../../src/workers/tasks.js';
import { createCsr, newKey } from '../../support/csr.js';
import { makeCa, type TestCert } from '../../support/test-pki.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

function issued(result: SignedCertificate): Extract<SignedCertificate, { ok: true }> {
  assert.equal(result.ok, true, result.ok ? '' : result.message);
  return result as Extract<SignedCertificate, { ok: true }>;
}

describe('signCsr', () => {
  let ca: TestCert;
  let caCert: X509Certificate;
  const request = (csrPem: string, extra: Record<string, unknown> = {}) => ({
    task: 'signCsr' as const, csrPem, caCertPem: ca.certPem, caKeyPem: ca.keyPem, validityDays: 365, usage: 'client' as const, ...extra,
  });
  before(() => {
    ca = makeCa('Sign Test CA');
    caCert = new X509Certificate(ca.certPem);
  });

  it('signs an RSA request: issued by the CA, the request key and subject, clientAuth, not a CA', () => {
    const key = newKey('rsa');
    const signed = issued(signCsr(request(createCsr(key, 'laptop-01'))));
    const cert = new X509Certificate(signed.certPem);
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.equal(cert.subject, 'CN=laptop-01');
    assert.equal(cert.issuer, caCert.subject);
    assert.deepEqual(cert.keyUsage, [CLIENT_AUTH]);
    assert.equal(cert.ca, false);
    assert.ok(cert.publicKey.equals(key.publicKey));
    assert.ok(cert.checkPrivateKey(key.privateKey));
  });

  it('reports the fingerprint as lowercase hex SHA-1 of the DER, and the validity window', () => {
    const signed = issued(signCsr(request(createCsr(newKey('rsa'), 'fp'))));
    const cert = new X509Certificate(signed.certPem);
    assert.equal(signed.fingerprint, createHash('sha1').update(cert.raw).digest('hex'));
    assert.match(signed.fingerprint, /^[0-9a-f]{40}$/);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000;
    assert.ok(days > 364.9 && days < 365.1, `validity ${days} days`);
    assert.ok(Date.parse(cert.validFrom) <= Date.now());
    assert.equal(Math.floor(Date.parse(signed.notAfter) / 1000), Date.parse(cert.validTo) / 1000);
  });

  it('signs an EC P-256 request and keeps its subjectAltNames; server usage gives serverAuth', () => {
    const key = newKey('ec');
    const csr = createCsr(key, 'router-1', { dnsNames: ['router.example'], ips: ['10.0.0.7'] });
    const cert = new X509Certificate(issued(signCsr(request(csr, { usage: 'server' }))).certPem);
    assert.ok(cert.verify(caCert.publicKey));
    assert.ok(cert.publicKey.equals(key.publicKey));
    assert.equal(cert.subjectAltName, 'DNS:router.example, IP Address:10.0.0.7');
    assert.deepEqual(cert.keyUsage, [SERVER_AUTH]);
  });

  it('refuses a request whose signature does not verify', () => {
    const a = createCsr(newKey('rsa'), 'aaaa');
    const body = a.split('\n').slice(1, -2).join('');
    const der = Buffer.from(body, 'base64');
    der[der.length - 5] ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const result = signCsr(request(tampered));
    assert.deepEqual(result.ok ? 'signed' : result.reason, 'csr');
  });

  it('refuses text that is not a PEM request', () => {
    for (const csrPem of ['', 'hello', '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n']) {
      const result = signCsr(request(csrPem));
      assert.equal(result.ok, false, csrPem);
    }
  });

  it('refuses a request for another common name when one is required', () => {
    const result = signCsr(request(createCsr(newKey('ec'), 'someone-else'), { commonName: 'router-id' }));
    assert.equal(result.ok ? 'signed' : result.reason, 'commonName');
    assert.equal(issued(signCsr(request(createCsr(newKey('ec'), 'router-id'), { commonName: 'router-id' }))).ok, true);
  });
});

describe('extendCertificate', () => {
  it("signs the new key for the old certificate's subject and SANs, ignoring the request's", () => {
    const ca = makeCa('Extend Test CA');
    const base = { caCertPem: ca.certPem, caKeyPem: ca.keyPem, validityDays: 365, usage: 'client' as const };
    const first = issued(signCsr({ task: 'signCsr', ...base, csrPem: createCsr(newKey('rsa'), 'original', { dnsNames: ['a.example'] }) }));
    const newer = newKey('ec');
    const extended = issued(extendCertificate({ task: 'extendCertificate', ...base, oldCertPem: first.certPem, csrPem: createCsr(newer, 'attacker', { dnsNames: ['b.example'] }) }));
    const cert = new X509Certificate(extended.certPem);
    assert.equal(cert.subject, 'CN=original');
    assert.equal(cert.subjectAltName, 'DNS:a.example');
    assert.ok(cert.publicKey.equals(newer.publicKey));
    assert.notEqual(extended.fingerprint, first.fingerprint);
    assert.notEqual(extended.publicKeyPrint, first.publicKeyPrint);
  });
});

describe('WorkerPool.signCsr', () => {
  let pool: WorkerPool;
  before(() => {
    pool = WorkerPool.create({ threads: 1 });
  });
  after(async () => {
    await pool.close();
  });

  it('signs on a worker thread and answers refusals as data', async () => {
    const ca = makeCa('Pool Test CA');
    const base = { caCertPem: ca.certPem, caKeyPem: ca.keyPem, validityDays: 30, usage: 'client' as const };
    const signed = issued(await pool.signCsr({ ...base, csrPem: createCsr(newKey('rsa'), 'pooled') }));
    assert.ok(new X509Certificate(signed.certPem).verify(new X509Certificate(ca.certPem).publicKey));
    const refused = await pool.signCsr({ ...base, csrPem: 'not a csr' });
    assert.equal(refused.ok, false);
  });
});
