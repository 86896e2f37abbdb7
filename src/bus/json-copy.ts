// A message as the other side of a wire would get it, without going through text: the value
// JSON.parse(JSON.stringify(value)) gives, built directly for plain data (objects, arrays,
// strings, finite numbers, booleans, null). Anything else (toJSON, class instances, odd keys,
// deep nesting) takes the real JSON round trip, so the result is the same in every case.

/** Nesting deeper than this takes the JSON round trip (which also reports cycles). */
const MAX_DEPTH = 32;

/** Signals that the direct copy does not apply. */
const NOT_PLAIN = Symbol('not plain');

/** JSON.parse(JSON.stringify(value)), and the same errors (a cycle, a BigInt). */
export function jsonCopy(value: unknown): unknown {
  const copied = copy(value, 0);
  if (copied !== NOT_PLAIN) return copied;
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

function copy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null; // -0 + 0 is 0, as JSON writes it
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      if (value === null) return null;
      if (depth >= MAX_DEPTH) return NOT_PLAIN;
      return Array.isArray(value) ? copyArray(value, depth) : copyObject(value as Record<string, unknown>, depth);
    default:
      return NOT_PLAIN; // bigint: JSON.stringify throws, and the fallback does
  }
}

function copyArray(items: unknown[], depth: number): unknown {
  if (Object.getPrototypeOf(items) !== Array.prototype) return NOT_PLAIN;
  const out = new Array<unknown>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = copy(items[i], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[i] = item === undefined ? null : item; // JSON writes null for these in arrays
  }
  return out;
}

function copyObject(source: Record<string, unknown>, depth: number): unknown {
  const proto = Object.getPrototypeOf(source);
  if ((proto !== Object.prototype && proto !== null) || typeof source.toJSON === 'function') return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key in source) {
    if (!Object.prototype.hasOwnProperty.call(source, key)) continue;
    // `__proto__` is an own key after JSON.parse but a prototype change by assignment; numeric
    // keys are reordered by both, but leave nothing to chance.
    if (key === '__proto__') return NOT_PLAIN;
    const item = copy(source[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    if (item !== undefined) out[key] = item;
  }
  return out;
}
