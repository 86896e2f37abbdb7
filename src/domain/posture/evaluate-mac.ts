// MAC address posture checks (BEHAVIOR.md §3.1): allowed and reported addresses are compared
// normalised (lowercase hex, separators removed); any common address passes. Pure.

import { cleanHex, type MacReport } from './posture-data.js';

export function evaluateMac(allowed: readonly string[], report: MacReport | null): boolean {
  if (!report) return false;
  const reported = new Set(report.addresses.map(cleanHex));
  return allowed.some((address) => reported.has(cleanHex(address)));
}
