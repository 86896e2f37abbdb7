// Body validation derived from a resource declaration: create and replace need every required
// field, patch takes the set of fields present. Pure; throws COULD_NOT_VALIDATE with a field path.

import { fieldError } from '../errors.js';
import { fieldsOf, type FieldSpec, type ResourceDecl, type WriteMode } from './resource.js';

export type { WriteMode };

/** The most items a list field (role attributes, selectors, ...) may hold, and the most entries
 * of a map field (tags, ...). */
export const MAX_LIST_ITEMS = 1000;
/** Integer fields without a range of their own stay within the integers a double holds exactly
 * (within int64, upstream's type for them). */
export const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Checks a request body against the declaration and returns the writable values it sets.
 * Unknown properties are ignored (as go-swagger does); server-written fields are dropped.
 * For create/replace, defaults fill absent optional fields.
 */
export function validateBody(decl: ResourceDecl, body: unknown, mode: WriteMode): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw fieldError('body', body === undefined ? null : body, 'must be a JSON object');
  }
  const input = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fieldsOf(decl))) {
    const write = spec.write ?? 'client';
    if (write !== 'client') continue;
    if (spec.createOnly && mode !== 'create') continue;
    const present = Object.prototype.hasOwnProperty.call(input, name) && input[name] !== undefined;
    if (!present) {
      if (mode === 'patch') continue;
      if (isRequired(spec, mode)) throw fieldError(name, null, `${name} is required`);
      if (spec.default !== undefined) out[name] = copyDefault(spec.default);
      continue;
    }
    if (input[name] === null && !spec.nullable && isRequired(spec, mode)) {
      throw fieldError(name, spec.secret ? '******' : null, `${name} is required`);
    }
    out[name] = spec.secret ? checkSecret(name, spec, input[name]) : checkValue(name, spec, input[name]);
  }
  return out;
}

/** A field default for one record: primitives as they are, JSON objects and arrays copied (so
 * no two records share one), without structuredClone's cost on every create. */
function copyDefault(value: unknown): unknown {
  return value === null || typeof value !== 'object' ? value : JSON.parse(JSON.stringify(value));
}

function isRequired(spec: FieldSpec, mode: WriteMode): boolean {
  if (mode === 'patch') return false;
  return spec.requiredOn ? spec.requiredOn.includes(mode) : Boolean(spec.required);
}

/** Secrets are validated like any value, but an error never echoes them. */
function checkSecret(name: string, spec: FieldSpec, value: unknown): unknown {
  try {
    return checkValue(name, spec, value);
  } catch (err) {
    throw fieldError(name, '******', (err as { apiCause?: { reason?: string } }).apiCause?.reason ?? 'invalid value');
  }
}

/** Validates one value against its spec; returns the normalised value. */
export function checkValue(path: string, spec: FieldSpec, value: unknown): unknown {
  if (value === null) {
    if (spec.nullable) return null;
    if (spec.default !== undefined) return copyDefault(spec.default);
    if (spec.required) throw fieldError(path, null, `${path} is required`);
    return null;
  }
  switch (spec.type) {
    case 'string':
      return checkString(path, spec, value);
    case 'boolean':
      if (typeof value !== 'boolean') throw typeError(path, value, 'boolean');
      return value;
    case 'integer':
      return checkInteger(path, spec, value);
    case 'datetime':
      if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
        throw fieldError(path, value, `${path} must be an RFC3339 date-time`);
      }
      return new Date(value).toISOString();
    case 'enum':
      if (typeof value !== 'string' || !(spec.values ?? []).includes(value)) {
        throw fieldError(path, value, `${path} must be one of ${(spec.values ?? []).join(', ')}`);
      }
      return value;
    case 'stringList':
      return checkStringList(path, spec, value);
    case 'tags':
      return checkTags(path, value);
    case 'object':
      return checkObject(path, spec, value);
    case 'intMap':
    case 'enumMap':
      return checkMap(path, spec, value);
  }
}

function typeError(path: string, value: unknown, expected: string) {
  return fieldError(path, value, `${path} in body must be of type ${expected}`);
}

/** A lone UTF-16 surrogate cannot be stored or indexed: it is not text. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkText(path: string, value: string): void {
  if (LONE_SURROGATE.test(value)) throw fieldError(path, value.replace(LONE_SURROGATE, '\ufffd'), `${path} must be well-formed Unicode text`);
}

function checkString(path: string, spec: FieldSpec, value: unknown): string {
  if (typeof value !== 'string') throw typeError(path, value, 'string');
  checkText(path, value);
  const length = [...value].length;
  if (spec.minLength !== undefined && length < spec.minLength) {
    throw fieldError(path, value, `${path} should be at least ${spec.minLength} chars long`);
  }
  if (spec.maxLength !== undefined && length > spec.maxLength) {
    throw fieldError(path, value, `${path} should be at most ${spec.maxLength} chars long`);
  }
  return value;
}

/** Throws 400 naming the field and the cap when a list or map holds more than MAX_LIST_ITEMS; the
 * error carries the count, not the items. */
export function checkItemCount(path: string, count: number): void {
  if (count > MAX_LIST_ITEMS) {
    throw fieldError(path, `${count} items`, `${path} has ${count} items; the cap is ${MAX_LIST_ITEMS}`);
  }
}

function checkInteger(path: string, spec: FieldSpec, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw typeError(path, value, 'integer');
  if (Math.abs(value) > MAX_INTEGER) {
    throw fieldError(path, value, `${path} must be an integer between -${MAX_INTEGER} and ${MAX_INTEGER} (the cap)`);
  }
  if (spec.min !== undefined && value < spec.min) {
    throw fieldError(path, value, `${path} should be greater than or equal to ${spec.min}`);
  }
  if (spec.max !== undefined && value > spec.max) {
    throw fieldError(path, value, `${path} should be less than or equal to ${spec.max}`);
  }
  return value;
}

function checkStringList(path: string, spec: FieldSpec, value: unknown): string[] {
  if (!Array.isArray(value)) throw typeError(path, value, 'array');
  checkItemCount(path, value.length);
  return value.map((item, i) => checkString(`${path}[${i}]`, { type: 'string', maxLength: spec.maxLength }, item));
}

function checkTags(path: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) throw typeError(path, value, 'object');
  checkItemCount(path, Object.keys(value).length);
  for (const [key, item] of Object.entries(value)) {
    checkText(`${path}.${key}`, key);
    if (typeof item === 'string') checkText(`${path}.${key}`, item);
    const ok = item === null || ['string', 'boolean', 'number'].includes(typeof item);
    if (!ok) throw fieldError(`${path}.${key}`, item, 'tag values must be null, string, number or boolean');
  }
  return value as Record<string, unknown>;
}

function checkObject(path: string, spec: FieldSpec, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) throw typeError(path, value, 'object');
  if (!spec.properties) return value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const sub = spec.properties[key];
    if (!sub || item === undefined) continue;
    out[key] = checkValue(`${path}.${key}`, sub, item);
  }
  for (const [key, sub] of Object.entries(spec.properties)) {
    if (sub.required && out[key] === undefined) throw fieldError(`${path}.${key}`, null, `${path}.${key} is required`);
  }
  return out;
}

function checkMap(path: string, spec: FieldSpec, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) throw typeError(path, value, 'object');
  checkItemCount(path, Object.keys(value).length);
  const itemSpec: FieldSpec =
    spec.type === 'intMap' ? { type: 'integer', min: spec.min, max: spec.max } : { type: 'enum', values: spec.values };
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] = checkValue(`${path}.${key}`, itemSpec, item);
  }
  return out;
}
