// One posture check against one identity's posture data, for one API session: pass or fail,
// and for a failure the actual and expected values upstream reports (failed service requests).
// Pure: `now` (epoch ms) is a parameter.

import { evaluateDomain } from './evaluate-domain.js';
import { evaluateMac } from './evaluate-mac.js';
import { evaluateMfa, mfaFailureValues, mfaSpecOf } from './evaluate-mfa.js';
import { evaluateOs } from './evaluate-os.js';
import { evaluateProcess, evaluateProcessMulti, processActual } from './evaluate-process.js';
import type { PostureData } from './posture-data.js';
import type { OperatingSystem, ProcessMultiSpec, ProcessSpec } from './posture-types.js';

/** A posture check as stored (base fields plus the typed fields of its type). */
export interface CheckRecord {
  id: string;
  name?: unknown;
  typeId?: unknown;
  [field: string]: unknown;
}

/** A failed check as `failed-service-requests` shows it (upstream postureCheckFailure*). */
export interface CheckFailure {
  postureCheckId: string;
  postureCheckName: string;
  postureCheckType: string;
  actualValue: unknown;
  expectedValue: unknown;
  criteria?: unknown;
  semantic?: string;
}

export interface CheckResult {
  passing: boolean;
  failure?: CheckFailure;
}

const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Evaluates `check` for `apiSessionId`; unknown check types fail. */
export function evaluateCheck(check: CheckRecord, data: PostureData, apiSessionId: string, now: number): CheckResult {
  const outcome = evaluateTyped(check, data, apiSessionId, now);
  if (outcome.passing) return { passing: true };
  return {
    passing: false,
    failure: {
      postureCheckId: check.id,
      postureCheckName: String(check.name ?? ''),
      postureCheckType: String(check.typeId ?? ''),
      ...outcome.values,
    },
  };
}

type Outcome = { passing: boolean; values: { actualValue: unknown; expectedValue: unknown; criteria?: unknown; semantic?: string } };

function evaluateTyped(check: CheckRecord, data: PostureData, apiSessionId: string, now: number): Outcome {
  switch (check.typeId) {
    case 'OS': {
      const expected = list<OperatingSystem>(check.operatingSystems);
      return {
        passing: evaluateOs(expected, data.os),
        values: { actualValue: { type: data.os?.type ?? '', version: data.os?.version ?? '' }, expectedValue: expected },
      };
    }
    case 'MAC': {
      const expected = list<string>(check.macAddresses);
      return { passing: evaluateMac(expected, data.mac), values: { actualValue: data.mac?.addresses ?? [], expectedValue: expected } };
    }
    case 'DOMAIN': {
      const expected = list<string>(check.domains);
      return { passing: evaluateDomain(expected, data.domain), values: { actualValue: data.domain?.domain ?? '', expectedValue: expected } };
    }
    case 'PROCESS': {
      const spec = (check.process ?? { osType: 'Windows', path: '', hashes: [] }) as ProcessSpec;
      const result = evaluateProcess(check.id, spec, data);
      const actual = result.report ? processActual(result.report, false) : { isRunning: false, hash: '', signerFingerprints: [] };
      return { passing: result.passing, values: { actualValue: actual, expectedValue: spec } };
    }
    case 'PROCESS_MULTI': {
      const semantic = String(check.semantic ?? 'AllOf');
      const expected = list<ProcessMultiSpec>(check.processes);
      const result = evaluateProcessMulti(semantic, expected, data);
      return {
        passing: result.passing,
        values: { semantic, actualValue: result.actual.map((r) => processActual(r, true)), expectedValue: expected },
      };
    }
    case 'MFA': {
      const spec = mfaSpecOf(check);
      const session = data.apiSessions[apiSessionId];
      return { passing: evaluateMfa(spec, session, now), values: mfaFailureValues(spec, session, now) as Outcome['values'] };
    }
    default:
      return { passing: false, values: { actualValue: null, expectedValue: null } };
  }
}
