// `--output table`: an aligned text table of the main columns of a resource (id, name and a
// few per kind), one row per entity.

/** The columns shown per resource (URL segment); others get id, name and createdAt. */
const COLUMNS: Record<string, string[]> = {
  identities: ['id', 'name', 'type', 'isAdmin', 'roleAttributes'],
  services: ['id', 'name', 'roleAttributes', 'encryptionRequired'],
  'edge-routers': ['id', 'name', 'isOnline', 'isVerified', 'roleAttributes'],
  routers: ['id', 'name', 'isOnline', 'isVerified'],
  'transit-routers': ['id', 'name', 'isOnline', 'isVerified'],
  'service-policies': ['id', 'name', 'type', 'semantic', 'identityRoles', 'serviceRoles'],
  'edge-router-policies': ['id', 'name', 'semantic', 'identityRoles', 'edgeRouterRoles'],
  'service-edge-router-policies': ['id', 'name', 'semantic', 'serviceRoles', 'edgeRouterRoles'],
  authenticators: ['id', 'method', 'identityId', 'username'],
  'api-sessions': ['id', 'identityId', 'ipAddress', 'lastActivityAt'],
  configs: ['id', 'name', 'configTypeId'],
  'config-types': ['id', 'name'],
  'posture-checks': ['id', 'name', 'typeId', 'roleAttributes'],
  cas: ['id', 'name', 'isVerified', 'isAutoCaEnrollmentEnabled'],
  'auth-policies': ['id', 'name'],
  'identity-types': ['id', 'name'],
  'external-jwt-signers': ['id', 'name', 'issuer', 'enabled'],
  'policy-advice': ['identity', 'service', 'isDialAllowed', 'isBindAllowed', 'identityRouterCount', 'serviceRouterCount', 'commonRouters'],
  'integrity-results': ['fixed', 'description'],
  snapshot: ['path', 'appliedSeq', 'keys', 'createdAt'],
};

export function columnsOf(resource: string): string[] {
  return COLUMNS[resource] ?? ['id', 'name', 'createdAt'];
}

/** Rows as an aligned table with an upper-case header (`IS_ADMIN` for `isAdmin`). */
export function formatTable(rows: Record<string, unknown>[], columns: string[]): string {
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
