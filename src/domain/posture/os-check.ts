// OS posture checks: the `operatingSystems` list and its semver version ranges (blang range
// syntax as upstream: `>=10.0.19041`, `>1.0.0 <2.0.0`, `||`), validated with node-semver. Pure.

import semver from 'semver';
import { fieldError } from '../../errors.js';
import { checkArray, checkOptionalStrings, checkOsType, checkRecord } from './body-checks.js';
import type { OperatingSystem } from './posture-types.js';

/**
 * Validates an `operatingSystems` body value: a non-empty list of `{type, versions}`. Absent
 * `versions` reads as [] (any version). Each range must parse; a bad one is a field error on
 * `operatingSystems[<os type>][<index>]`, as upstream reports it.
 */
export function checkOperatingSystems(value: unknown): OperatingSystem[] {
  return checkArray('operatingSystems', value, 1).map((item, i) => checkOperatingSystem(item, i));
}

function checkOperatingSystem(item: unknown, index: number): OperatingSystem {
  const path = `operatingSystems[${index}]`;
  const entry = checkRecord(path, item);
  const type = checkOsType(`${path}.type`, entry.type);
  const versions = checkOptionalStrings(`${path}.versions`, entry.versions);
  versions.forEach((range, i) => {
    if (!isValidVersionRange(range)) {
      throw fieldError(`operatingSystems[${type}][${i}]`, range, `invalid version range for os ${type}: ${JSON.stringify(range)}`);
    }
  });
  return { type, versions };
}

/**
 * True for a semver range upstream's blang parser would also take. node-semver reads a blank
 * range (or a blank `||` alternative) as `*`; blang rejects it, so do we.
 */
export function isValidVersionRange(range: string): boolean {
  if (range.split('||').some((alternative) => alternative.trim() === '')) return false;
  return semver.validRange(range) !== null;
}
