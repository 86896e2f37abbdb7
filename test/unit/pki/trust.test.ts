// Chain checks of client certificates (node:crypto checkIssued + verify): direct issuance,
// intermediates sent by the client, strangers, key usages, validity, and CA identity names.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import forge from 'node-forge';
import { formatIdentityName } from '../../../src/actors/credentials/ca-auto-enroll.js';
import { allowsClientAuth, chainsTo, peerChainOf, validityAt } from '../../../src/pki/trust.js';
import { makeCa, makeLeaf, makeSelfSigned, type TestCert } from '../../support/test-pki.js';

/** An intermediate CA signed by `root` (test-pki makes roots and leaves only). */
function makeIntermediate(root: TestCert, commonName: string): TestCert {
  const keys = forge.pki.rsa.generateKeyPair(1024);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '0a1b';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: commonName }]);
  cert.setIssuer(forge.pki.certificateFromPem(root.certPem).subject.attributes);
  cert.setExtensions([{ name: 'basicConstraints', cA: true, critical: true }, { name: 'keyUsage', keyCertSign: true, critical: true }]);
  cert.sign(forge.pki.privateKeyFromPem(root.keyPem) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

const x509 = (cert: TestCert) => new X509Certificate(cert.certPem);

describe('chainsTo', () => {
  const root = makeCa('Trust Root');
  const intermediate = makeIntermediate(root, 'Trust Intermediate');

  it('accepts a leaf the anchor signed', () => {
    assert.equal(chainsTo(x509(makeLeaf(root, 'direct')), [], x509(root)), true);
  });

  it('follows intermediates the client sent, and only with them', () => {
    const leaf = x509(makeLeaf(intermediate, 'via-intermediate'));
    assert.equal(chainsTo(leaf, [x509(intermediate)], x509(root)), true);
    assert.equal(chainsTo(leaf, [], x509(root)), false);
  });

  it('refuses a leaf of another CA and a self-signed certificate', () => {
    assert.equal(chainsTo(x509(makeLeaf(makeCa('Other Root'), 'other')), [], x509(root)), false);
    assert.equal(chainsTo(x509(makeSelfSigned('self')), [x509(intermediate)], x509(root)), false);
  });
});

describe('certificate checks', () => {
  it('allowsClientAuth: clientAuth or no extended key usage', () => {
    const root = makeCa('Usage Root');
    assert.equal(allowsClientAuth(x509(makeLeaf(root, 'client'))), true);
    assert.equal(allowsClientAuth(x509(makeSelfSigned('no-eku'))), true);
  });

  it('validityAt tells expired from not yet valid', () => {
    const root = makeCa('Validity Root');
    assert.equal(validityAt(x509(makeLeaf(root, 'now'))), 'valid');
    assert.equal(validityAt(x509(makeLeaf(root, 'old', { fromDays: -10, toDays: -1 }))), 'expired');
    assert.equal(validityAt(x509(makeLeaf(root, 'soon', { fromDays: 1, toDays: 10 }))), 'notYetValid');
  });

  it('peerChainOf: leaf first, SHA-1 fingerprint; nothing for no or broken PEM', () => {
    const root = makeCa('Peer Root');
    const leaf = makeLeaf(root, 'peer');
    const chain = peerChainOf([leaf.certPem, root.certPem])!;
    assert.equal(chain.leaf.subject, 'CN=peer');
    assert.equal(chain.intermediates.length, 1);
    assert.equal(chain.fingerprint, x509(leaf).fingerprint.replace(/:/g, '').toLowerCase());
    assert.equal(peerChainOf([]), undefined);
    assert.equal(peerChainOf(undefined), undefined);
    assert.equal(peerChainOf(['garbage']), undefined);
  });
});

describe('formatIdentityName', () => {
  it('replaces every placeholder, leaving other text alone', () => {
    const values = { caName: 'acme', caId: 'c1', commonName: 'sensor', requestedName: 'asked', identityId: 'i1' };
    assert.equal(formatIdentityName('[caName]-[commonName]', values), 'acme-sensor');
    assert.equal(formatIdentityName('[caId]/[identityId]/[requestedName]/[unknown]', values), 'c1/i1/asked/[unknown]');
  });
});
