// Combining checks into access: any granting policy with all checks passing grants (a policy
// without checks always does), the 409 cause, failed-service-request records and their cap.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_FAILED_SERVICE_REQUESTS,
  appendFailedRequest,
  applyPostureResponse,
  emptyPostureData,
  evaluateAccess,
  evaluatePostureBulk,
  failedServiceRequest,
  invalidPostureCause,
  type FailedServiceRequest,
  type PolicyChecks,
} from '../../../../src/domain/posture/index.js';

const at = '2024-01-01T00:00:00.000Z';
const domainCheck = { id: 'chk-domain', name: 'domain', typeId: 'DOMAIN', domains: ['corp'] };
const macCheck = { id: 'chk-mac', name: 'mac', typeId: 'MAC', macAddresses: ['aabbcc001122'] };
const policy = (policyId: string, checks: PolicyChecks['checks']): PolicyChecks => ({ policyId, policyName: `${policyId}-name`, policyType: 'Dial', checks });
const data = applyPostureResponse(emptyPostureData(), { id: 'd', typeId: 'DOMAIN', domain: 'other' }, [], at);

describe('evaluateAccess', () => {
  it('fails when every granting policy has a failing check', () => {
    const decision = evaluateAccess([policy('p2', [domainCheck]), policy('p1', [domainCheck, macCheck])], data, 'api', 0);
    assert.equal(decision.passed, false);
    assert.deepEqual(decision.failures.map((f) => [f.policyId, f.policyName, f.checks.map((c) => c.postureCheckId)]), [
      ['p1', 'p1-name', ['chk-domain', 'chk-mac']],
      ['p2', 'p2-name', ['chk-domain']],
    ]);
  });

  it('grants access through one policy without checks, whatever the others require', () => {
    const decision = evaluateAccess([policy('strict', [domainCheck]), policy('open', [])], data, 'api', 0);
    assert.equal(decision.passed, true);
    assert.deepEqual(decision.passingPolicyIds, ['open']);
  });

  it('grants access when all checks of one policy pass', () => {
    const corp = applyPostureResponse(emptyPostureData(), { id: 'd', typeId: 'DOMAIN', domain: 'CORP' }, [], at);
    assert.equal(evaluateAccess([policy('p', [domainCheck])], corp, 'api', 0).passed, true);
  });

  it('fails without any granting policy', () => {
    assert.equal(evaluateAccess([], data, 'api', 0).passed, false);
  });
});

describe('invalidPostureCause', () => {
  it('has the upstream message and per-policy check data', () => {
    const decision = evaluateAccess([policy('p2', [domainCheck]), policy('p1', [macCheck])], data, 'api', 0);
    assert.deepEqual(invalidPostureCause(decision), {
      message: 'Failed to pass posture checks for service policies: [p1 p2]',
      data: {
        p1: [{ id: 'chk-mac', typeId: 'MAC', isPassing: false }],
        p2: [{ id: 'chk-domain', typeId: 'DOMAIN', isPassing: false }],
      },
    });
  });
});

describe('failed service requests', () => {
  it('record every failed policy and check with actual and expected values', () => {
    const decision = evaluateAccess([policy('p1', [domainCheck])], data, 'api', 0);
    const entry = failedServiceRequest(decision, { when: at, apiSessionId: 'api', serviceId: 's', serviceName: 'svc', sessionType: 'Dial' });
    assert.deepEqual(entry.policyFailures, [
      {
        policyId: 'p1',
        policyName: 'p1-name',
        checks: [{ postureCheckId: 'chk-domain', postureCheckName: 'domain', postureCheckType: 'DOMAIN', actualValue: 'other', expectedValue: ['corp'] }],
      },
    ]);
  });

  it('keep only the last 50', () => {
    const list: FailedServiceRequest[] = [];
    for (let i = 0; i < 57; i++) appendFailedRequest(list, { when: at, apiSessionId: 'api', serviceId: `s${i}`, serviceName: '', sessionType: 'Dial', policyFailures: [] });
    assert.equal(MAX_FAILED_SERVICE_REQUESTS, 50);
    assert.equal(list.length, 50);
    assert.equal(list[0]!.serviceId, 's7');
    assert.equal(list[49]!.serviceId, 's56');
  });
});

describe('evaluatePostureBulk', () => {
  it('lists only identities with failing sessions, and the failing sessions', () => {
    const result = evaluatePostureBulk({
      now: 0,
      checks: { [domainCheck.id]: domainCheck },
      identities: [
        {
          identityId: 'i1',
          data,
          sessions: [
            { sessionId: 's-fail', apiSessionId: 'a', policies: [{ policyId: 'p', policyName: 'p', policyType: 'Dial', checkIds: ['chk-domain'] }] },
            { sessionId: 's-open', apiSessionId: 'a', policies: [{ policyId: 'o', policyName: 'o', policyType: 'Dial', checkIds: [] }] },
            { sessionId: 's-lost', apiSessionId: 'a', policies: [] },
          ],
        },
        { identityId: 'i2', data, sessions: [{ sessionId: 's2', apiSessionId: 'b', policies: [{ policyId: 'o', policyName: 'o', policyType: 'Dial', checkIds: [] }] }] },
      ],
    });
    assert.deepEqual(result, [{ identityId: 'i1', failingSessionIds: ['s-fail', 's-lost'] }]);
  });
});
