// Validation and normalisation of the type-specific fields of posture check bodies for create,
// replace and patch (BEHAVIOR.md §3.1). The common fields go through validateBody. Pure.

import { fieldError } from '../../errors.js';
import type { WriteMode } from '../validate.js';
import { checkArray, checkBoolean, checkString, typeError } from './body-checks.js';
import { checkOperatingSystems } from './os-check.js';
import { checkProcess, checkProcesses, checkSemantic } from './process-check.js';
import { MFA_DEFAULTS, MFA_NO_TIMEOUT, TYPED_FIELDS, type PostureCheckType } from './posture-types.js';

type Checker = (value: unknown) => unknown;

const CHECKERS: Record<string, Checker> = {
  operatingSystems: checkOperatingSystems,
  macAddresses: checkMacAddresses,
  domains: checkDomains,
  process: checkProcess,
  semantic: checkSemantic,
  processes: checkProcesses,
  timeoutSeconds: checkTimeout,
  promptOnWake: (v) => checkBoolean('promptOnWake', v),
  promptOnUnlock: (v) => checkBoolean('promptOnUnlock', v),
  ignoreLegacyEndpoints: (v) => checkBoolean('ignoreLegacyEndpoints', v),
};

/**
 * Returns the normalised typed fields a body sets for a check of `typeId`. Create and replace
 * need every field of the type (MFA fields default instead); patch takes the fields present.
 * Fields of other check types are ignored, as unknown properties are.
 */
export function validatePostureFields(typeId: PostureCheckType, body: unknown, mode: WriteMode): Record<string, unknown> {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of TYPED_FIELDS[typeId]) {
    const value = input[field];
    if (typeId === 'MFA' && (value === undefined || value === null)) {
      // Upstream reads an absent (or, on patch, null) MFA property as its zero value.
      if (mode !== 'patch' || value === null) out[field] = MFA_DEFAULTS[field as keyof typeof MFA_DEFAULTS];
      continue;
    }
    if (value === undefined) {
      if (mode !== 'patch') throw fieldError(field, null, `${field} is required`);
      continue;
    }
    out[field] = CHECKERS[field]!(value);
  }
  return out;
}

/**
 * The type of a check being replaced or patched: `typeId` is immutable, so a body may omit it
 * or repeat the stored one; any other value is 400 on `typeId`.
 */
export function checkTypeIdUnchanged(body: unknown, stored: PostureCheckType): PostureCheckType {
  const requested = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).typeId : undefined;
  if (requested === undefined || requested === null || requested === stored) return stored;
  throw fieldError('typeId', requested, `typeId may not be changed (is ${stored})`);
}

/** A MAC address as stored and compared: lowercase hex with every non-hex character removed. */
export function normaliseMac(address: string): string {
  return address.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/** A non-empty list of MAC addresses, each 12 hex digits once normalised; stored normalised. */
function checkMacAddresses(value: unknown): string[] {
  return checkArray('macAddresses', value, 1).map((item, i) => {
    const path = `macAddresses[${i}]`;
    const mac = normaliseMac(checkString(path, item));
    if (mac.length !== 12) throw fieldError(path, item, `${path} must be a MAC address of 12 hex digits`);
    return mac;
  });
}

/** A non-empty list of non-empty domain names (compared case-insensitively, stored as given). */
function checkDomains(value: unknown): string[] {
  return checkArray('domains', value, 1).map((item, i) => checkString(`domains[${i}]`, item, true));
}

/** Seconds an MFA check stays valid; <= 0 means no timeout and is stored as -1. */
function checkTimeout(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw typeError('timeoutSeconds', value, 'integer');
  return value <= 0 ? MFA_NO_TIMEOUT : value;
}
