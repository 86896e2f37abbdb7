// PROCESS (legacy, one process) and PROCESS_MULTI posture checks (BEHAVIOR.md §3.1). Reported
// hashes and signers are already normalised; stored check values are compared as stored,
// case-insensitively. PROCESS_MULTI matches reports by exact path; OneOf is evaluated as AnyOf.

import type { PostureData, ProcessReport } from './posture-data.js';
import { evaluationSemantic, type ProcessMultiSpec, type ProcessSpec } from './posture-types.js';

/** The actual values upstream reports for a process in a failure. */
export interface ProcessActual {
  path?: string;
  isRunning: boolean;
  hash: string;
  signerFingerprints: string[];
}

export function processActual(report: ProcessReport, withPath: boolean): ProcessActual {
  const actual: ProcessActual = { isRunning: report.isRunning, hash: report.hash, signerFingerprints: [...report.signerFingerprints] };
  if (withPath) actual.path = report.path;
  return actual;
}

const sameFold = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Empty `allowed` accepts anything; otherwise the value must equal one, case-insensitively. */
function hashAllowed(allowed: readonly string[], hash: string): boolean {
  return allowed.length === 0 || allowed.some((h) => sameFold(h, hash));
}

function signerAllowed(allowed: readonly string[], signers: readonly string[]): boolean {
  return allowed.length === 0 || allowed.some((a) => signers.some((s) => sameFold(a, s)));
}

/** The legacy check: the report answering this check id must be running, signed and hashed as required. */
export function evaluateProcess(checkId: string, spec: ProcessSpec, data: PostureData): { passing: boolean; report?: ProcessReport } {
  const report = data.processes.find((p) => p.postureCheckId === checkId);
  if (!report || !report.isRunning) return { passing: false, report };
  if (spec.signerFingerprint && !signerAllowed([spec.signerFingerprint], report.signerFingerprints)) return { passing: false, report };
  return { passing: hashAllowed(spec.hashes ?? [], report.hash), report };
}

/** One PROCESS_MULTI entry against the report for its exact path. */
export function processSatisfied(spec: ProcessMultiSpec, report: ProcessReport | undefined): boolean {
  if (!report || !report.isRunning) return false;
  return hashAllowed(spec.hashes ?? [], report.hash) && signerAllowed(spec.signerFingerprints ?? [], report.signerFingerprints);
}

/**
 * AllOf: every entry satisfied (an entry with an empty path fails); AnyOf (and OneOf): at least
 * one. `actual` lists the reports upstream shows in a failure: for AllOf the first report that
 * failed (none when a path was never reported), for AnyOf every report found that failed.
 */
export function evaluateProcessMulti(semantic: string, processes: readonly ProcessMultiSpec[], data: PostureData): { passing: boolean; actual: ProcessReport[] } {
  if (evaluationSemantic(semantic) === 'AllOf') {
    for (const spec of processes) {
      const report = spec.path === '' ? undefined : data.processByPath[spec.path];
      if (!processSatisfied(spec, report)) return { passing: false, actual: report ? [report] : [] };
    }
    return { passing: true, actual: [] };
  }
  const actual: ProcessReport[] = [];
  for (const spec of processes) {
    if (spec.path === '') continue;
    const report = data.processByPath[spec.path];
    if (!report) continue;
    if (processSatisfied(spec, report)) return { passing: true, actual: [] };
    actual.push(report);
  }
  return { passing: false, actual };
}
