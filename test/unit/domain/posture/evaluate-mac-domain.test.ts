// MAC and DOMAIN posture checks: normalised MAC comparison and case-insensitive domains.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPostureResponse, emptyPostureData, evaluateDomain, evaluateMac } from '../../../../src/domain/posture/index.js';

const at = '2024-01-01T00:00:00.000Z';

describe('evaluateMac', () => {
  it('normalises reported and allowed addresses before comparing', () => {
    const data = applyPostureResponse(emptyPostureData(), { id: 'm', typeId: 'MAC', macAddresses: ['AA-BB-CC-00-11-22', 'de:ad:be:ef:00:01'] }, [], at);
    assert.deepEqual(data.mac?.addresses, ['aabbcc001122', 'deadbeef0001']);
    assert.equal(evaluateMac(['aabbcc001122'], data.mac), true);
    assert.equal(evaluateMac(['AA:BB:CC:00:11:22'], data.mac), true);
    assert.equal(evaluateMac(['aabb.cc00.1133'], data.mac), false);
  });

  it('fails without a report', () => {
    assert.equal(evaluateMac(['aabbcc001122'], null), false);
  });
});

describe('evaluateDomain', () => {
  const report = (domain: string) => ({ postureCheckId: 'd', lastUpdatedAt: at, domain });

  it('compares domains case-insensitively', () => {
    assert.equal(evaluateDomain(['Corp.Example'], report('CORP.example')), true);
    assert.equal(evaluateDomain(['corp.example', 'other'], report('Other')), true);
  });

  it('fails on another domain, an empty one or none', () => {
    assert.equal(evaluateDomain(['corp.example'], report('corp.example.evil')), false);
    assert.equal(evaluateDomain(['corp.example'], report('')), false);
    assert.equal(evaluateDomain(['corp.example'], null), false);
  });
});
