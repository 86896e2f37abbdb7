// The externalIdClaim extraction (upstream's x509-claims): every location × matcher × parser
// combination on one set of certificate names, combinations that do not fit, and the index.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExternalIdClaim } from '../../../src/domain/ca-rules.js';
import { describeClaim, externalIdCandidates, extractExternalId, type CertificateNames } from '../../../src/domain/external-id-claim.js';

const NAMES: CertificateNames = {
  commonName: 'device.blue.example',
  uris: ['spiffe://example.org/ns/prod', 'https://example.org/devices/42', 'spiffe://other.org/job'],
  emails: ['alice@corp.example', 'bob@lab.example'],
};

function claim(location: ExternalIdClaim['location'], matcher: ExternalIdClaim['matcher'], matcherCriteria: string, parser: ExternalIdClaim['parser'], parserCriteria = '', index = 0): ExternalIdClaim {
  return { location, matcher, matcherCriteria, parser, parserCriteria, index };
}

/** [location, matcher, matcherCriteria, parser, parserCriteria, expected candidates] */
const COMBINATIONS: [ExternalIdClaim['location'], ExternalIdClaim['matcher'], string, ExternalIdClaim['parser'], string, string[]][] = [
  ['COMMON_NAME', 'ALL', '', 'NONE', '', ['device.blue.example']],
  ['COMMON_NAME', 'ALL', '', 'SPLIT', '.', ['device', 'blue', 'example']],
  ['COMMON_NAME', 'PREFIX', 'device.', 'NONE', '', ['blue.example']],
  ['COMMON_NAME', 'PREFIX', 'device.', 'SPLIT', '.', ['blue', 'example']],
  ['COMMON_NAME', 'SUFFIX', '.example', 'NONE', '', ['device.blue']],
  ['COMMON_NAME', 'SUFFIX', '.example', 'SPLIT', '.', ['device', 'blue']],
  ['SAN_EMAIL', 'ALL', '', 'NONE', '', ['alice@corp.example', 'bob@lab.example']],
  ['SAN_EMAIL', 'ALL', '', 'SPLIT', '@', ['alice', 'corp.example', 'bob', 'lab.example']],
  ['SAN_EMAIL', 'PREFIX', 'alice@', 'NONE', '', ['corp.example']],
  ['SAN_EMAIL', 'PREFIX', 'alice@', 'SPLIT', '.', ['corp', 'example']],
  ['SAN_EMAIL', 'SUFFIX', '.example', 'NONE', '', ['alice@corp', 'bob@lab']],
  ['SAN_EMAIL', 'SUFFIX', '.example', 'SPLIT', '@', ['alice', 'corp', 'bob', 'lab']],
  ['SAN_URI', 'ALL', '', 'NONE', '', ['spiffe://example.org/ns/prod', 'https://example.org/devices/42', 'spiffe://other.org/job']],
  ['SAN_URI', 'ALL', '', 'SPLIT', '//', ['spiffe:', 'example.org/ns/prod', 'https:', 'example.org/devices/42', 'spiffe:', 'other.org/job']],
  ['SAN_URI', 'SCHEME', 'spiffe', 'NONE', '', ['spiffe://example.org/ns/prod', 'spiffe://other.org/job']],
  ['SAN_URI', 'SCHEME', 'spiffe', 'SPLIT', '/', ['spiffe:', '', 'example.org', 'ns', 'prod', 'spiffe:', '', 'other.org', 'job']],
];

describe('externalIdCandidates', () => {
  for (const [location, matcher, matcherCriteria, parser, parserCriteria, expected] of COMBINATIONS) {
    it(`${location} ${matcher} ${parser} yields ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(externalIdCandidates(claim(location, matcher, matcherCriteria, parser, parserCriteria), NAMES), expected);
    });
  }

  it('PREFIX and SUFFIX keep only the values that have the criteria', () => {
    assert.deepEqual(externalIdCandidates(claim('COMMON_NAME', 'PREFIX', 'sensor.', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('COMMON_NAME', 'SUFFIX', '.test', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_EMAIL', 'SUFFIX', '@lab.example', 'NONE'), NAMES), ['bob']);
  });

  it('SCHEME compares the URI scheme without regard to case, and not a prefix of it', () => {
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'SCHEME', 'HTTPS', 'NONE'), NAMES), ['https://example.org/devices/42']);
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'SCHEME', 'http', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'SCHEME', 'spiffe', 'NONE'), { ...NAMES, uris: ['urn:spiffe:x', 'not a uri'] }), []);
  });

  it('yields nothing for matchers that do not fit the location', () => {
    assert.deepEqual(externalIdCandidates(claim('COMMON_NAME', 'SCHEME', 'spiffe', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_EMAIL', 'SCHEME', 'mailto', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'PREFIX', 'spiffe://', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'SUFFIX', '/job', 'NONE'), NAMES), []);
  });

  it('yields nothing without the criteria a matcher or parser needs', () => {
    assert.deepEqual(externalIdCandidates(claim('COMMON_NAME', 'PREFIX', '', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_EMAIL', 'SUFFIX', '', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'SCHEME', '', 'NONE'), NAMES), []);
    assert.deepEqual(externalIdCandidates(claim('COMMON_NAME', 'ALL', '', 'SPLIT', ''), NAMES), []);
  });

  it('yields nothing when the certificate has no value at the location', () => {
    const bare: CertificateNames = { commonName: 'bare', uris: [], emails: [] };
    assert.deepEqual(externalIdCandidates(claim('SAN_URI', 'ALL', '', 'NONE'), bare), []);
    assert.deepEqual(externalIdCandidates(claim('SAN_EMAIL', 'ALL', '', 'NONE'), bare), []);
  });
});

describe('extractExternalId', () => {
  it('picks the candidate at the index, across all located values', () => {
    const spiffe = claim('SAN_URI', 'SCHEME', 'spiffe', 'NONE');
    assert.equal(extractExternalId(spiffe, NAMES), 'spiffe://example.org/ns/prod');
    assert.equal(extractExternalId({ ...spiffe, index: 1 }, NAMES), 'spiffe://other.org/job');
    assert.equal(extractExternalId(claim('SAN_EMAIL', 'ALL', '', 'SPLIT', '@', 2), NAMES), 'bob');
    assert.equal(extractExternalId(claim('COMMON_NAME', 'ALL', '', 'SPLIT', '.', 2), NAMES), 'example');
  });

  it('answers undefined for an index past the candidates', () => {
    assert.equal(extractExternalId(claim('SAN_URI', 'SCHEME', 'spiffe', 'NONE', '', 2), NAMES), undefined);
    assert.equal(extractExternalId(claim('COMMON_NAME', 'PREFIX', 'sensor.', 'NONE'), NAMES), undefined);
  });

  it('answers undefined for an empty candidate (an identity cannot have an empty externalId)', () => {
    assert.equal(extractExternalId(claim('SAN_URI', 'SCHEME', 'spiffe', 'SPLIT', '/', 1), NAMES), undefined);
    assert.equal(extractExternalId(claim('COMMON_NAME', 'ALL', '', 'NONE'), { ...NAMES, commonName: '' }), undefined);
    assert.equal(extractExternalId(claim('COMMON_NAME', 'PREFIX', 'device.blue.example', 'NONE'), NAMES), undefined);
  });
});

describe('describeClaim', () => {
  it('names location, matcher with criteria, parser with criteria and index', () => {
    assert.equal(describeClaim(claim('SAN_URI', 'SCHEME', 'spiffe', 'NONE')), 'SAN_URI SCHEME "spiffe" [0]');
    assert.equal(describeClaim(claim('COMMON_NAME', 'ALL', '', 'SPLIT', '.', 2)), 'COMMON_NAME ALL SPLIT "." [2]');
  });
});
