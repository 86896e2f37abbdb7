// Combining posture checks into service access (BEHAVIOR.md §3.2): among the service policies
// of the session type that grant the identity the service, access passes when at least one has
// all its checks passing (a policy without checks passes). Also builds the 409 INVALID_POSTURE
// cause and the failed-service-request record. Pure.

import { evaluateCheck, type CheckFailure, type CheckRecord, type CheckResult } from './evaluate-check.js';
import type { PostureData } from './posture-data.js';

/** A granting service policy with its posture checks. */
export interface PolicyChecks {
  policyId: string;
  policyName: string;
  policyType: 'Dial' | 'Bind';
  checks: CheckRecord[];
}

export interface PolicyFailure {
  policyId: string;
  policyName: string;
  checks: CheckFailure[];
}

export interface AccessDecision {
  passed: boolean;
  /** Policies whose checks all pass (stored on the session as `servicePolicies`). */
  passingPolicyIds: string[];
  /** Every evaluated policy that failed, with every failed check, by policy id. */
  failures: PolicyFailure[];
}

/** `failed-service-requests` entry (upstream FailedServiceRequest). */
export interface FailedServiceRequest {
  when: string;
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: string;
  policyFailures: PolicyFailure[];
}

/**
 * Evaluates every policy (each check once per call). With no granting policy, access fails.
 * Policies are taken in id order so failures and messages are stable.
 */
export function evaluateAccess(policies: readonly PolicyChecks[], data: PostureData, apiSessionId: string, now: number): AccessDecision {
  const cache = new Map<string, CheckResult>();
  const decision: AccessDecision = { passed: false, passingPolicyIds: [], failures: [] };
  for (const policy of [...policies].sort((a, b) => (a.policyId < b.policyId ? -1 : a.policyId > b.policyId ? 1 : 0))) {
    const failed: CheckFailure[] = [];
    for (const check of policy.checks) {
      let result = cache.get(check.id);
      if (!result) {
        result = evaluateCheck(check, data, apiSessionId, now);
        cache.set(check.id, result);
      }
      if (result.failure) failed.push(result.failure);
    }
    if (failed.length === 0) {
      decision.passed = true;
      decision.passingPolicyIds.push(policy.policyId);
    } else {
      decision.failures.push({ policyId: policy.policyId, policyName: policy.policyName, checks: failed });
    }
  }
  return decision;
}

/** The `cause` of 409 INVALID_POSTURE: the failed policy ids (Go `%v` list) and each one's checks. */
export function invalidPostureCause(decision: AccessDecision): { message: string; data: Record<string, unknown[]> } {
  const data: Record<string, unknown[]> = {};
  for (const failure of decision.failures) {
    data[failure.policyId] = failure.checks.map((c) => ({ id: c.postureCheckId, typeId: c.postureCheckType, isPassing: false }));
  }
  const ids = decision.failures.map((f) => f.policyId).join(' ');
  return { message: `Failed to pass posture checks for service policies: [${ids}]`, data };
}

export function failedServiceRequest(
  decision: AccessDecision,
  request: { when: string; apiSessionId: string; serviceId: string; serviceName: string; sessionType: string },
): FailedServiceRequest {
  return { ...request, policyFailures: decision.failures };
}

/** Failed service requests kept per identity (Weft keeps 50; upstream 100). */
export const MAX_FAILED_SERVICE_REQUESTS = 50;

/** Appends `entry`, dropping the oldest beyond the cap (mutates and returns `list`). */
export function appendFailedRequest(list: FailedServiceRequest[], entry: FailedServiceRequest): FailedServiceRequest[] {
  list.push(entry);
  if (list.length > MAX_FAILED_SERVICE_REQUESTS) list.splice(0, list.length - MAX_FAILED_SERVICE_REQUESTS);
  return list;
}
