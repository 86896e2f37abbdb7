// Windows domain posture checks (BEHAVIOR.md §3.1): the reported domain must equal one of the
// allowed domains, compared case-insensitively. Pure.

import type { DomainReport } from './posture-data.js';

export function evaluateDomain(domains: readonly string[], report: DomainReport | null): boolean {
  if (!report) return false;
  const reported = report.domain.toLowerCase();
  return domains.some((domain) => domain.toLowerCase() === reported);
}
