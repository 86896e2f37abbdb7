// Cross-entity rules enforced inside apply, read from the declarations: protected entities
// (each kind's `guardDelete` hook), delete cascades and id-list references. Pure.

import { ApiError } from '../errors.js';
import type { Entity } from './commands.js';
import { declarationOf, RESOURCES } from './registry.js';
import type { Cascade, ListRefDecl, ResourceDecl } from './resource.js';

export type { Cascade };

/** A declaration's `listRefs` entry with the kind that declares it (`from`). */
export interface ListReference extends ListRefDecl {
  from: string;
}

/** Every id-list reference of every declaration. */
export const LIST_REFERENCES: readonly ListReference[] = RESOURCES.flatMap((decl: ResourceDecl) => (decl.listRefs ?? []).map((ref) => ({ ...ref, from: decl.kind })));

/** The entities deleted with an entity of `kind` (its declaration's `cascades`). */
export function cascadesOf(kind: string): readonly Cascade[] {
  return declarationOf(kind).cascades ?? [];
}

/** Throws when the entity may not be deleted through the API: a system entity, or what the
 * kind's `guardDelete` hook refuses. A system delete (cascades from the controller) skips both. */
export function guardDelete(kind: string, record: Entity, system = false): void {
  if (system) return;
  const decl = declarationOf(kind);
  if (record.isSystem === true) {
    const entity = decl.entity.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: `cannot delete system ${entity} in a non-system context` });
  }
  decl.guardDelete?.(record);
}
