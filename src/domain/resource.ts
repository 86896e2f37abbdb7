// The resource declaration: one plain object per resource kind from which routes, validation,
// filtering, sorting, storage indexes and the served API document are derived, with the kind's
// special behaviour as optional hooks (pure functions and data). No I/O.

import type { Entity } from './entity.js';

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

/** How a write body is being applied: create (POST), replace (PUT) or patch (PATCH). */
export type WriteMode = 'create' | 'replace' | 'patch';

/** A kind's write rule, run on the validated body values before a write is proposed: mappings
 * and upstream quirks the fields alone cannot express. Changes `values` in place or throws. */
export type PrepareWrite = (values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode) => void;

/** When deleting an entity of the declaring kind, also delete every `target` whose `field`
 * equals its id. */
export interface Cascade {
  target: string;
  field: string;
  /** The field may also hold ids of no such entity, so it is no reference: an API session's
   * authenticatorId names the ext-jwt signer or the external-id marker for some logins, and a
   * login racing its authenticator's deletion may still land. Upstream keeps such sessions too
   * (a plain string field, deleted with the authenticator by a delete-where). */
  loose?: true;
}

/**
 * A list field of the declaring kind holding plain ids of `kind` (not `@id` role entries): every
 * listed id must exist when the list is written (400 on `field`); with `onePer`, no two listed
 * entities may share that field's value; deleting a `kind` entity strips its id from every such list.
 */
export interface ListRefDecl {
  field: string;
  kind: string;
  onePer?: string;
}

export type RelationVia =
  /** Children whose indexed `field` equals the parent id. */
  | { index: string }
  /** The entities a policy's role list selects. */
  | { members: true }
  /** The policies of the child kind that select the parent entity. */
  | { policies: true }
  /** Entities reached from the parent through the policies of `policyKind`. */
  | { through: string };

/** A related list `/<kind>/{id}/<child>` of the declaring (parent) kind. */
export interface RelationDecl {
  child: string;
  via: RelationVia;
}

/** The actors of their own a declaration may name (`ownActor`), each named after its file in
 * `src/actors/`; `actors/actor-factory.ts` maps every name to its class (a `Record` over this
 * union, so a name without a class is a compile error). */
export type ActorName =
  | 'identity-actor'
  | 'api-session-certificate-catalog'
  | 'auth-policy-catalog'
  | 'authenticator-catalog'
  | 'ca-catalog'
  | 'config-catalog'
  | 'config-type-catalog'
  | 'edge-router-catalog'
  | 'enrollment-catalog'
  | 'external-jwt-signer-catalog'
  | 'identity-service-config-catalog'
  | 'posture-check-catalog'
  | 'revocation-catalog'
  | 'router-catalog'
  | 'terminator-catalog';

/** The presentations a declaration may name (`present`): computed wire fields that need the
 * replica, the access model or router presence. `query/presentations.ts` maps every name to its
 * decorators (a `Record` over this union). */
export type PresentationName =
  | 'entity-refs'
  | 'access'
  | 'router-presence'
  | 'sessions'
  | 'posture-checks'
  | 'configs'
  | 'credentials'
  | 'enrollments'
  | 'mfa';

export interface ResourceDecl<K extends string = string> {
  /** Plural URL segment and storage kind, e.g. `identities`. */
  kind: K;
  /** Singular entity name used in `_links` and entity refs, e.g. `identity`. */
  entity: string;
  /** The actor family that owns this kind's commands: per-entity or one catalog per kind. */
  actor: 'entity' | 'catalog';
  /** Operations exposed over HTTP with the access each needs. */
  ops: Partial<Record<Operation, Access>>;
  fields: Record<string, FieldSpec>;
  /** Short description for the served API document. */
  description: string;
  /** Entities of this kind are selected by policies through `roleAttributes` and `@id` (their
   * role attributes are then checked on every write: they may not look like selectors). */
  selectable?: boolean;

  // Behaviour hooks: each is optional; generic code reads them (see docs/architecture.md).
  /** Write rule run after body validation (store/entity writers: `prepareWrite`). */
  prepare?: PrepareWrite;
  /** Entities deleted with an entity of this kind (apply; integrity checks). */
  cascades?: readonly Cascade[];
  /** Throws when an entity may not be deleted through the API (system deletes skip it). */
  guardDelete?: (record: Entity) => void;
  /** Id-list fields of this kind that reference another kind (apply; integrity checks). */
  listRefs?: readonly ListRefDecl[];
  /** Related lists served under `/<kind>/{id}/<child>` (gateway routes; query handler). */
  relations?: readonly RelationDecl[];
  /** Operations a valid non-admin session is refused with 403 FORBIDDEN (upstream: 401);
   * a request without a session stays 401 (BEHAVIOR.md "Where Weft deliberately differs"). */
  forbiddenToNonAdmins?: readonly Operation[];
  /** The columns of `weft list <kind> --output table`; default id, name, createdAt. */
  columns?: readonly string[];
  /** The actor of its own that serves this kind's commands; without one, the generic
   * `CatalogActor` does (one per kind, or per entity for an entity family). */
  ownActor?: ActorName;
  /** The presentations that add this kind's computed wire fields, run in this order after the
   * stored fields are copied (secrets dropped, `tags` and `_links` set). */
  present?: readonly PresentationName[];
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
