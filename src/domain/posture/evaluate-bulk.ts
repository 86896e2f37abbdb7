// Bulk re-evaluation of service sessions after a posture check or service policy changed: plain
// data in (checks by id, per identity its posture data and candidate sessions with their
// granting policies), the sessions that no longer pass out. Pure; runs on the worker pool.

import type { CheckRecord } from './evaluate-check.js';
import { evaluateAccess, type PolicyChecks } from './evaluate-policies.js';
import type { PostureData } from './posture-data.js';

/** A granting policy by reference to the shared check table. */
export interface BulkPolicy {
  policyId: string;
  policyName: string;
  policyType: 'Dial' | 'Bind';
  checkIds: string[];
}

export interface BulkSession {
  sessionId: string;
  apiSessionId: string;
  /** The policies of the session's type that grant its service to the identity now. */
  policies: BulkPolicy[];
}

export interface BulkIdentity {
  identityId: string;
  data: PostureData;
  sessions: BulkSession[];
}

export interface PostureBulkInput {
  now: number;
  checks: Record<string, CheckRecord>;
  identities: BulkIdentity[];
}

export interface PostureBulkResult {
  identityId: string;
  failingSessionIds: string[];
}

/** Every identity with at least one failing session; a session with no granting policy fails. */
export function evaluatePostureBulk(input: PostureBulkInput): PostureBulkResult[] {
  const out: PostureBulkResult[] = [];
  for (const identity of input.identities) {
    const failing: string[] = [];
    for (const session of identity.sessions) {
      const policies: PolicyChecks[] = session.policies.map((p) => ({
        policyId: p.policyId,
        policyName: p.policyName,
        policyType: p.policyType,
        checks: p.checkIds.map((id) => input.checks[id]).filter((c): c is CheckRecord => c !== undefined),
      }));
      if (!evaluateAccess(policies, identity.data, session.apiSessionId, input.now).passed) failing.push(session.sessionId);
    }
    if (failing.length > 0) out.push({ identityId: identity.identityId, failingSessionIds: failing });
  }
  return out;
}
