// Names read from real certificates for externalIdClaim: SAN URIs and emails in order (Node's
// subjectAltName text, JSON-quoted values included) and common names with escaped characters.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { certificateNamesOf, commonNameOf, subjectAltNames } from '../../../src/pki/ca-certificates.js';
import { makeCa, makeLeaf } from '../../support/test-pki.js';

const ca = makeCa('Names Test CA');
const parsed = (pem: string) => new X509Certificate(pem);

describe('certificateNamesOf', () => {
  it('reads the CN, the SAN URIs and the SAN emails in certificate order', () => {
    const leaf = makeLeaf(ca, 'sensor-1', { uris: ['spiffe://example.org/a', 'urn:x,y'], emails: ['a@example.org', 'b,c@example.org'] });
    assert.deepEqual(certificateNamesOf(parsed(leaf.certPem)), {
      commonName: 'sensor-1',
      uris: ['spiffe://example.org/a', 'urn:x,y'],
      emails: ['a@example.org', 'b,c@example.org'],
    });
  });

  it('has empty lists for a certificate without subject alternative names', () => {
    assert.deepEqual(certificateNamesOf(parsed(makeLeaf(ca, 'bare').certPem)), { commonName: 'bare', uris: [], emails: [] });
  });
});

describe('commonNameOf', () => {
  for (const cn of ['a, "quoted" name', 'a+b=c;d<e>#f', ' leading space', 'back\\slash', 'line\nbreak', 'héllo wörld']) {
    it(`reads ${JSON.stringify(cn)} unescaped`, () => {
      assert.equal(commonNameOf(parsed(makeLeaf(ca, cn).certPem)), cn);
    });
  }
});

describe('subjectAltNames', () => {
  it('splits entries and decodes JSON-quoted values', () => {
    assert.deepEqual(subjectAltNames('DNS:a.example, URI:"urn:a\\u002cb", email:x@y.z'), [
      { type: 'DNS', value: 'a.example' },
      { type: 'URI', value: 'urn:a,b' },
      { type: 'email', value: 'x@y.z' },
    ]);
    assert.deepEqual(subjectAltNames(''), []);
  });
});
