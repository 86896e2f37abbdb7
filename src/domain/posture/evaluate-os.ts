// OS posture checks (BEHAVIOR.md §3.1): the reported OS type matched case-insensitively, the
// reported version parsed as strict semver and tested against blang-style ranges. Pure.

import semver from 'semver';
import type { OsReport } from './posture-data.js';
import type { OperatingSystem } from './posture-types.js';

/**
 * Strict SemVer 2.0 (what blang `semver.Make` accepts): MAJOR.MINOR.PATCH, no leading zeros,
 * optional pre-release and build metadata, no `v` prefix, no spaces. node-semver alone would
 * also take `v1.2.3` and ` 1.2.3 `, which upstream rejects.
 */
const STRICT_SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isStrictSemver(version: string): boolean {
  return STRICT_SEMVER.test(version);
}

/**
 * True when `version` satisfies any of `ranges`; each range may itself hold `||` alternatives
 * and space-separated (AND) comparators. Pre-releases compare like any version, as in blang
 * (node-semver would otherwise exclude them). Windows reports `10.0.<build>`: the build number
 * is the patch, so `>=10.0.19041` reads "build 19041 or later".
 */
export function versionSatisfies(version: string, ranges: readonly string[]): boolean {
  if (!isStrictSemver(version)) return false;
  return ranges.some((range) => {
    try {
      return semver.satisfies(version, range, { includePrerelease: true });
    } catch {
      return false;
    }
  });
}

/** The check's entry for a reported OS type; when a type appears twice the last one wins. */
export function osEntryFor(operatingSystems: readonly OperatingSystem[], type: string): OperatingSystem | undefined {
  const wanted = type.toLowerCase();
  let found: OperatingSystem | undefined;
  for (const entry of operatingSystems) if (String(entry.type).toLowerCase() === wanted) found = entry;
  return found;
}

/** Passes when the reported OS has an entry and (if the entry lists versions) a matching version. */
export function evaluateOs(operatingSystems: readonly OperatingSystem[], report: OsReport | null): boolean {
  if (!report) return false;
  const entry = osEntryFor(operatingSystems, report.type);
  if (!entry) return false;
  const versions = entry.versions ?? [];
  return versions.length === 0 || versionSatisfies(report.version, versions);
}
