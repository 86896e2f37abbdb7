// Readers for the fields of a bus message at the receiving end: each returns the field typed or
// throws 400 INVALID_MESSAGE naming the field. Messages cross the network in cluster mode, so a
// receiver never trusts a sender's types. No I/O, no knowledge of any one message.

import { ApiError } from '../../errors.js';

/** A message as it arrives: a JSON object of unknown fields. */
export type Fields = Record<string, unknown>;

/** 400 INVALID_MESSAGE: the cause names the field and, as `value`, the JSON type found (never
 * the value itself: it may be a secret such as a token or a password). */
export function invalidMessage(field: string, value: unknown, reason: string): ApiError {
  return new ApiError('INVALID_MESSAGE', { field, value: jsonType(value), reason });
}

/** 501 UNKNOWN_OPERATION: no handler for `op` in this subject family. */
export function unknownOperation(family: string, op: unknown): ApiError {
  return new ApiError('UNKNOWN_OPERATION', { field: 'op', value: typeof op === 'string' ? op : jsonType(op), reason: `${family} has no operation ${typeof op === 'string' ? op : `of type ${jsonType(op)}`}` });
}

function jsonType(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** The message as an object with a string `op`; anything else is INVALID_MESSAGE. */
export function messageObject(msg: unknown): Fields & { op: string } {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) throw invalidMessage('', msg, 'a message is a JSON object');
  const op = (msg as Fields).op;
  if (typeof op !== 'string') throw invalidMessage('op', op, 'op must be a string');
  return msg as Fields & { op: string };
}

export function str(m: Fields, field: string): string {
  const value = m[field];
  if (typeof value !== 'string') throw invalidMessage(field, value, `${field} must be a string`);
  return value;
}

export function optStr(m: Fields, field: string): string | undefined {
  const value = m[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalidMessage(field, value, `${field} must be a string when present`);
  return value;
}

/** A string that may be null (e.g. an optional code the sender read from a request). */
export function optNullableStr(m: Fields, field: string): string | null | undefined {
  return m[field] === null ? null : optStr(m, field);
}

export function bool(m: Fields, field: string): boolean {
  const value = m[field];
  if (typeof value !== 'boolean') throw invalidMessage(field, value, `${field} must be a boolean`);
  return value;
}

export function optBool(m: Fields, field: string): boolean | undefined {
  return m[field] === undefined ? undefined : bool(m, field);
}

export function optNum(m: Fields, field: string): number | undefined {
  const value = m[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidMessage(field, value, `${field} must be a number when present`);
  return value;
}

export function obj(m: Fields, field: string): Fields {
  const value = m[field];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidMessage(field, value, `${field} must be an object`);
  return value as Fields;
}

export function optObj(m: Fields, field: string): Fields | undefined {
  return m[field] === undefined ? undefined : obj(m, field);
}

export function optStrList(m: Fields, field: string): string[] | undefined {
  const value = m[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw invalidMessage(field, value, `${field} must be a list of strings when present`);
  return value as string[];
}
