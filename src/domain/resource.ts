// The resource declaration: one plain object per resource kind from which routes, validation,
// filtering, sorting, storage indexes and the served API document are derived. Pure data.

/** The wire type of a field. `stringList` is a JSON array of strings; `tags` a string→scalar map. */
export type FieldType =
  | 'string'
  | 'boolean'
  | 'integer'
  | 'datetime'
  | 'enum'
  | 'stringList'
  | 'tags'
  | 'object'
  | 'intMap'
  | 'enumMap';

export interface FieldSpec {
  type: FieldType;
  /** Must be present in create and replace bodies (absent on patch is always fine). */
  required?: boolean;
  /** Overrides `required`: the write modes in which the field must be present. */
  requiredOn?: readonly ('create' | 'replace')[];
  /** Accepted in bodies but never stored as such (e.g. a password that is stored hashed). */
  transient?: boolean;
  /** JSON null is accepted and stored as null. */
  nullable?: boolean;
  /** Stored on create/replace when the body omits the field. */
  default?: unknown;
  /** 'client' = accepted in bodies (default); 'ignored' = accepted but silently dropped (upstream
   * quirks like isDefaultAdmin); 'server' = computed or set by the controller, never from a body. */
  write?: 'client' | 'ignored' | 'server';
  /** Create-only: accepted on create, ignored on replace/patch. */
  createOnly?: boolean;
  /** Unique across the kind (checked in apply; violations are 400 "<field> must be unique"). */
  unique?: boolean;
  /** Kept in a secondary index in the replica (query planning, sort order, lookups). */
  indexed?: boolean;
  /** A public query symbol (listed in meta.filterableFields). */
  filterable?: boolean;
  sortable?: boolean;
  /** Never leaves the controller (e.g. password hashes); not filterable, not presented. */
  secret?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  /** Allowed values for enum / enumMap. */
  values?: readonly string[];
  /** The kind this field's id refers to. */
  ref?: string;
  /** For policy role lists: the kind whose entities `#attr` / `@id` entries select. */
  roles?: string;
  /** The error code used when a delete is refused because this reference exists (default 409
   * CAN_NOT_DELETE_REFERENCED_ENTITY). */
  refConflictCode?: string;
  /** Property schemas for `object` fields; unknown properties are rejected when present. */
  properties?: Record<string, FieldSpec>;
  description?: string;
}

export type Operation = 'list' | 'get' | 'create' | 'replace' | 'patch' | 'delete';

/** Who may call a declared operation through the management API. */
export type Access = 'admin' | 'authenticated' | 'none';

export interface ResourceDecl {
  /** Plural URL segment and storage kind, e.g. `identities`. */
  kind: string;
  /** Singular entity name used in `_links` and entity refs, e.g. `identity`. */
  entity: string;
  /** The actor family that owns this kind's commands: per-entity or one catalog per kind. */
  actor: 'entity' | 'catalog';
  /** Operations exposed over HTTP with the access each needs. */
  ops: Partial<Record<Operation, Access>>;
  fields: Record<string, FieldSpec>;
  /** Short description for the served API document. */
  description: string;
  /** Entities of this kind are selected by policies through `roleAttributes` and `@id`. */
  selectable?: boolean;
}

/** A function of a declaration, computed once per declaration (declarations never change;
 * what it returns is shared: callers must not change it). Apply asks these on every write. */
export function perDeclaration<T>(compute: (decl: ResourceDecl) => T): (decl: ResourceDecl) => T {
  const computed = new WeakMap<ResourceDecl, T>();
  return (decl) => {
    if (!computed.has(decl)) computed.set(decl, compute(decl));
    return computed.get(decl)!;
  };
}

/** The role-list fields of a policy kind, each with the kind it selects. */
export const roleFields = perDeclaration((decl): [field: string, target: string][] =>
  Object.entries(decl.fields)
    .filter(([, f]) => f.roles !== undefined)
    .map(([name, f]) => [name, f.roles!]),
);

/** Fields every entity has; merged into each declaration by `fieldsOf`. */
export const BASE_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', write: 'server', filterable: true, sortable: true },
  createdAt: { type: 'datetime', write: 'server', filterable: true, sortable: true, indexed: true },
  updatedAt: { type: 'datetime', write: 'server', filterable: true, sortable: true, indexed: true },
  tags: { type: 'tags', nullable: true, default: {} },
};

/** The declaration's fields with the base fields. */
export const fieldsOf = perDeclaration((decl): Record<string, FieldSpec> => ({ ...BASE_FIELDS, ...decl.fields }));

/** The names of the fields kept in secondary indexes, base fields included. */
export function indexedFields(decl: ResourceDecl): string[] {
  return Object.entries(fieldsOf(decl))
    .filter(([, f]) => f.indexed || f.unique)
    .map(([name]) => name);
}

/** Public query symbols, sorted, as reported in `meta.filterableFields`. */
export function filterableFields(decl: ResourceDecl): string[] {
  return Object.entries(fieldsOf(decl))
    .filter(([, f]) => f.filterable && !f.secret)
    .map(([name]) => name)
    .sort();
}
