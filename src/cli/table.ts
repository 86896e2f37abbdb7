// `--output table`: an aligned text table of the main columns of a resource (id, name and a
// few per kind), one row per entity.

import { isKind, resourceOf } from '../domain/registry.js';

/** The columns of the listings that are not a declared kind (a kind's are its declaration's
 * `columns`); others get id, name and createdAt. */
const OTHER_COLUMNS: Record<string, string[]> = {
  // Routers under their fabric URL segment.
  'transit-routers': ['id', 'name', 'isOnline', 'isVerified'],
  'policy-advice': ['identity', 'service', 'isDialAllowed', 'isBindAllowed', 'identityRouterCount', 'serviceRouterCount', 'commonRouters'],
  'integrity-results': ['fixed', 'description'],
  snapshot: ['path', 'appliedSeq', 'keys', 'createdAt'],
};

const DEFAULT_COLUMNS: readonly string[] = ['id', 'name', 'createdAt'];

export function columnsOf(resource: string): readonly string[] {
  const declared = isKind(resource) ? resourceOf(resource).columns : OTHER_COLUMNS[resource];
  return declared ?? DEFAULT_COLUMNS;
}

/** Rows as an aligned table with an upper-case header (`IS_ADMIN` for `isAdmin`). */
export function formatTable(rows: Record<string, unknown>[], columns: readonly string[]): string {
  const header = columns.map((c) => c.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase());
  const body = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...body.map(line)].join('\n');
}

/** One cell: refs by name, lists comma-joined, nothing as `-`, never a line break. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(cell).join(',');
  if (typeof value === 'object') {
    const ref = value as { name?: unknown; id?: unknown };
    if (typeof ref.name === 'string') return ref.name;
    if (typeof ref.id === 'string') return ref.id;
    return JSON.stringify(value);
  }
  return String(value).replace(/\s+/g, ' ');
}
