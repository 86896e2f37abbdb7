// service.postureQueries: dummy entries without any check, one entry per granting policy
// otherwise, with per-check isPassing, timeouts and MFA / process specifics.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyPostureData, postureQueries, type PostureData } from '../../../../src/domain/posture/index.js';

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const base = { tags: {}, createdAt: '2024-01-01T00:00:00.000Z', updatedAt: '2024-01-01T00:00:00.000Z' };

describe('postureQueries', () => {
  it('gives one passing dummy entry per permission when no posture check exists', () => {
    const out = postureQueries({ permissions: ['Bind', 'Dial'], anyChecksExist: false, policies: [], data: emptyPostureData(), apiSessionId: 'a', now: T0 });
    assert.deepEqual(out, [
      { policyId: 'dummy bind policy: no posture checks defined', policyType: 'Bind', isPassing: true, postureQueries: [] },
      { policyId: 'dummy dial policy: no posture checks defined', policyType: 'Dial', isPassing: true, postureQueries: [] },
    ]);
  });

  it('lists every granting policy, a policy without checks passing with no queries', () => {
    const mfa = { ...base, id: 'mfa', name: 'mfa', typeId: 'MFA', timeoutSeconds: 600, promptOnWake: true, promptOnUnlock: false };
    const proc = { ...base, id: 'proc', name: 'proc', typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/bin/a', hashes: [], signerFingerprints: [] }] };
    const data: PostureData = { ...emptyPostureData(), apiSessions: { a: { passedMfaAt: new Date(T0).toISOString(), wokenAt: new Date(T0 + 1000).toISOString(), unlockedAt: null, sdkInfo: null } } };
    const out = postureQueries({
      permissions: ['Dial'],
      anyChecksExist: true,
      policies: [
        { policyId: 'p2', policyName: 'p2', policyType: 'Dial', checks: [] },
        { policyId: 'p1', policyName: 'p1', policyType: 'Dial', checks: [mfa, proc] },
      ],
      data,
      apiSessionId: 'a',
      now: T0 + 2000,
    });
    assert.deepEqual(out.map((p) => [p.policyId, p.isPassing, p.postureQueries.length]), [
      ['p1', false, 2],
      ['p2', true, 0],
    ]);
    const [mfaQuery, procQuery] = out[0]!.postureQueries;
    assert.equal(mfaQuery!.queryType, 'MFA');
    assert.equal(mfaQuery!.isPassing, true);
    assert.equal(mfaQuery!.timeout, 600);
    assert.equal(mfaQuery!.timeoutRemaining, 299, 'cut to the grace after the wake event');
    assert.equal(mfaQuery!.timeoutAt, new Date(T0 + 2000 + 299_000).toISOString());
    assert.equal(mfaQuery!.updatedAt, new Date(T0 + 1000).toISOString(), 'the wake time is newer than the check');
    assert.equal(mfaQuery!.promptOnWake, true);
    assert.deepEqual(mfaQuery!._links, { self: { href: './posture-checks/mfa' } });
    assert.equal(procQuery!.isPassing, false);
    assert.equal(procQuery!.timeout, -1);
    assert.equal(procQuery!.timeoutRemaining, -1);
    assert.equal('timeoutAt' in procQuery!, false);
    assert.deepEqual(procQuery!.processes, [{ osType: 'Linux', path: '/bin/a' }]);
  });
});
