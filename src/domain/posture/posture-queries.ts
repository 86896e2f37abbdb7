// `service.postureQueries` of the client API (BEHAVIOR.md §3.3): per granting policy, its posture
// checks as queries with isPassing and timeouts, or one "dummy" entry per permission when the
// system has no posture checks at all. Pure: `now` (epoch ms) is a parameter.

import { evaluateCheck, type CheckRecord } from './evaluate-check.js';
import { mfaLastUpdatedAt, mfaSpecOf, mfaTimeoutRemaining } from './evaluate-mfa.js';
import type { PolicyChecks } from './evaluate-policies.js';
import type { PostureData } from './posture-data.js';
import { MFA_NO_TIMEOUT, type ProcessMultiSpec, type ProcessSpec } from './posture-types.js';

export interface PostureQuerySet {
  policyId: string;
  policyType: string;
  isPassing: boolean;
  postureQueries: Record<string, unknown>[];
}

export interface PostureQueryInput {
  /** The service's permissions for the identity (`Bind` / `Dial`). */
  permissions: readonly string[];
  /** False when no posture check exists anywhere (→ dummy entries). */
  anyChecksExist: boolean;
  /** Every service policy granting the identity this service, with its checks. */
  policies: readonly PolicyChecks[];
  data: PostureData;
  apiSessionId: string;
  now: number;
}

export function postureQueries(input: PostureQueryInput): PostureQuerySet[] {
  if (!input.anyChecksExist) {
    return input.permissions
      .filter((p) => p === 'Dial' || p === 'Bind')
      .map((p) => ({ policyId: `dummy ${p.toLowerCase()} policy: no posture checks defined`, policyType: p, isPassing: true, postureQueries: [] }));
  }
  const passing = new Map<string, boolean>();
  return [...input.policies]
    .sort((a, b) => (a.policyId < b.policyId ? -1 : a.policyId > b.policyId ? 1 : 0))
    .map((policy) => {
      const queries = policy.checks.map((check) => {
        let isPassing = passing.get(check.id);
        if (isPassing === undefined) {
          isPassing = evaluateCheck(check, input.data, input.apiSessionId, input.now).passing;
          passing.set(check.id, isPassing);
        }
        return postureQuery(check, isPassing, input);
      });
      return { policyId: policy.policyId, policyType: policy.policyType, isPassing: queries.every((q) => q.isPassing === true), postureQueries: queries };
    });
}

/** One check as a query: its base fields, queryType, isPassing, timeouts and type specifics. */
export function postureQuery(check: CheckRecord, isPassing: boolean, input: { data: PostureData; apiSessionId: string; now: number }): Record<string, unknown> {
  const query: Record<string, unknown> = {
    id: check.id,
    name: check.name ?? '',
    tags: check.tags ?? {},
    createdAt: check.createdAt,
    updatedAt: check.updatedAt,
    _links: { self: { href: `./posture-checks/${encodeURIComponent(check.id)}` } },
    queryType: check.typeId,
    isPassing,
    timeout: MFA_NO_TIMEOUT,
    timeoutRemaining: MFA_NO_TIMEOUT,
  };
  switch (check.typeId) {
    case 'MFA': {
      const spec = mfaSpecOf(check);
      const session = input.data.apiSessions[input.apiSessionId];
      query.timeout = spec.timeoutSeconds;
      query.timeoutRemaining = mfaTimeoutRemaining(spec, session, input.now);
      query.promptOnWake = spec.promptOnWake;
      query.promptOnUnlock = spec.promptOnUnlock;
      const eventAt = mfaLastUpdatedAt(spec, session);
      if (eventAt && Date.parse(eventAt) > Date.parse(String(check.updatedAt))) query.updatedAt = eventAt;
      break;
    }
    case 'PROCESS': {
      const process = check.process as ProcessSpec | undefined;
      query.process = { osType: process?.osType ?? '', path: process?.path ?? '' };
      break;
    }
    case 'PROCESS_MULTI':
      query.processes = ((check.processes ?? []) as ProcessMultiSpec[]).map((p) => ({ osType: p.osType, path: p.path }));
      break;
  }
  const remaining = query.timeoutRemaining as number;
  if (remaining >= 0) query.timeoutAt = new Date(input.now + remaining * 1000).toISOString();
  return query;
}
