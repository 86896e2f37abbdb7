// The write rules of a declaration applied to validated values before a write is proposed: the
// kind's own `prepare` hook, then the rule every selectable kind shares. Pure.

import type { Entity } from './commands.js';
import { checkRoleAttributes } from './policy.js';
import type { ResourceDecl, WriteMode } from './resource.js';

export function prepareWrite(decl: ResourceDecl, values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  decl.prepare?.(values, old, mode);
  // Entities that policies select: their role attributes may not look like selectors.
  if (decl.selectable && values.roleAttributes !== undefined) checkRoleAttributes('roleAttributes', values.roleAttributes as string[]);
}
