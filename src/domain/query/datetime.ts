// Datetime handling for ZitiQL: the RFC 3339 body of a `datetime(...)` literal, and reading
// record values (ISO strings, Dates, epoch ms) as epoch milliseconds.

/** The RFC 3339 date-time the grammar accepts (Z or ±hh:mm offset required; t/z any case). */
export const RFC3339 = new RegExp(
  '(\\d+)-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])[Tt]' + // date
    '([01]\\d|2[0-3]):([0-5]\\d):([0-5]\\d|60)(?:\\.(\\d+))?' + // time, fraction
    '([Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)', // offset
  'y',
);

/** Epoch ms of a lexically valid RFC 3339 text; undefined when the calendar date is impossible. */
export function parseRfc3339(text: string): number | undefined {
  RFC3339.lastIndex = 0;
  const m = RFC3339.exec(text);
  if (!m || m[0].length !== text.length) return undefined;
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  if (y.length !== 4 || Number(s) > 59) return undefined;
  const year = Number(y);
  const month = Number(mo) - 1;
  const day = Number(d);
  const date = new Date(Date.UTC(2000, month, day, Number(h), Number(mi), Number(s)));
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return undefined;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  return date.getTime() + ms - offsetMinutes(offset) * 60_000;
}

function offsetMinutes(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

/** A record's datetime value as epoch ms: Date, finite number, or parseable string; else null. */
export function toEpochMs(value: unknown): number | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
