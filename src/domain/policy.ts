// Policy role lists (BEHAVIOR.md §2): validation, normalisation and the matching rule shared
// by edge router policies, service edge router policies and service policies. Pure.

import { fieldError } from '../errors.js';

export type Semantic = 'AllOf' | 'AnyOf';

/** A role list split into its parts: `#all`, `#attr` attributes and `@id` ids. */
export interface Roles {
  all: boolean;
  attributes: string[];
  ids: string[];
}

export function splitRoles(roles: readonly string[]): Roles {
  const out: Roles = { all: false, attributes: [], ids: [] };
  for (const role of roles) {
    if (role === '#all') out.all = true;
    else if (role.startsWith('#')) out.attributes.push(role.slice(1));
    else if (role.startsWith('@')) out.ids.push(role.slice(1));
  }
  return out;
}

/** Checks prefixes and `#all` alone; returns the list sorted and de-duplicated (as stored). */
export function normaliseRoles(field: string, roles: readonly string[]): string[] {
  for (const role of roles) {
    if (!role.startsWith('#') && !role.startsWith('@')) {
      throw fieldError(field, roles, 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)');
    }
  }
  if (roles.includes('#all') && roles.length > 1) {
    throw fieldError(field, roles, 'if using #all, it should be the only role specified');
  }
  return [...new Set(roles)].sort();
}

/** Entity role attributes may not look like selectors. */
export function checkRoleAttributes(field: string, attributes: readonly string[]): void {
  for (const attr of attributes) {
    if (attr.startsWith('#') || attr.startsWith('@')) {
      throw fieldError(field, attributes, 'role attributes may not be prefixed with # or @');
    }
  }
}

/**
 * The matching rule: an entity matches when its id is listed as `@id` (whatever the semantic),
 * or the list is `#all`, or (AllOf) it has every listed attribute / (AnyOf) any of them. An
 * empty list matches nothing.
 */
export function matchesRoles(roles: Roles, semantic: Semantic, entity: { id: string; roleAttributes?: unknown }): boolean {
  if (roles.ids.includes(entity.id)) return true;
  if (roles.all) return true;
  if (roles.attributes.length === 0) return false;
  return matchesRoleSet(roles, semantic, entity.id, attributeSet(entity));
}

/** An entity's role attributes as a set (built once when many policies are matched against it). */
export function attributeSet(entity: { roleAttributes?: unknown }): ReadonlySet<string> {
  return new Set(Array.isArray(entity.roleAttributes) ? (entity.roleAttributes as string[]) : []);
}

/** matchesRoles for an entity whose attributes are already a set. */
export function matchesRoleSet(roles: Roles, semantic: Semantic, entityId: string, attrs: ReadonlySet<string>): boolean {
  if (roles.ids.includes(entityId)) return true;
  if (roles.all) return true;
  if (roles.attributes.length === 0) return false;
  return semantic === 'AnyOf' ? roles.attributes.some((a) => attrs.has(a)) : roles.attributes.every((a) => attrs.has(a));
}
