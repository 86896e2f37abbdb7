// Related lists (`/<parent>/{id}/<child>`), collected from the declarations' `relations`
// hooks. The gateway builds its routes from this table and the query handler resolves them. Pure.

import { RESOURCES } from './registry.js';
import type { RelationDecl, RelationVia, ResourceDecl } from './resource.js';

export type { RelationVia };

/** A related list with its parent kind. */
export interface Relation extends RelationDecl {
  parent: string;
}

/** Every related list of every declaration (their `relations` hooks), in declaration order. */
export const RELATIONS: readonly Relation[] = RESOURCES.flatMap((decl: ResourceDecl) => (decl.relations ?? []).map((r) => ({ parent: decl.kind, ...r })));

export function findRelation(parent: string, child: string): Relation | undefined {
  return RELATIONS.find((r) => r.parent === parent && r.child === child);
}
