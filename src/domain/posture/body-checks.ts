// Small shape checks for the nested, type-specific parts of posture check bodies (lists of
// objects the resource declaration cannot express). Pure; errors are 400 with a field path.

import { fieldError } from '../../errors.js';
import { checkItemCount } from '../validate.js';
import { OS_TYPES, type OsType } from './posture-types.js';

export function typeError(path: string, value: unknown, expected: string) {
  return fieldError(path, value, `${path} in body must be of type ${expected}`);
}

/** An array, non-empty when `minItems` is 1 (upstream's `minItems: 1`). */
export function checkArray(path: string, value: unknown, minItems = 0): unknown[] {
  if (!Array.isArray(value)) throw typeError(path, value ?? null, 'array');
  checkItemCount(path, value.length);
  if (value.length < minItems) throw fieldError(path, value, `${path} in body should have at least ${minItems} items`);
  return value;
}

/** A JSON object (not null, not an array). */
export function checkRecord(path: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw typeError(path, value ?? null, 'object');
  return value as Record<string, unknown>;
}

/** A string; with `nonEmpty`, one that is not blank. */
export function checkString(path: string, value: unknown, nonEmpty = false): string {
  if (value === undefined || value === null) throw fieldError(path, null, `${path} is required`);
  if (typeof value !== 'string') throw typeError(path, value, 'string');
  if (nonEmpty && value.trim() === '') throw fieldError(path, value, `${path} must not be empty`);
  return value;
}

/** A list of strings; absent or null reads as an empty list (optional lists). */
export function checkOptionalStrings(path: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return checkArray(path, value).map((item, i) => checkString(`${path}[${i}]`, item));
}

export function checkOsType(path: string, value: unknown): OsType {
  if (value === undefined || value === null) throw fieldError(path, null, `${path} is required`);
  if (typeof value !== 'string' || !(OS_TYPES as readonly string[]).includes(value)) {
    throw fieldError(path, value, `${path} must be one of ${OS_TYPES.join(', ')}`);
  }
  return value as OsType;
}

export function checkBoolean(path: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw typeError(path, value, 'boolean');
  return value;
}
