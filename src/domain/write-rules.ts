// Kind-specific rules applied to validated values before a write is proposed: mappings and
// upstream quirks the declaration alone cannot express. Pure.

import { fieldError } from '../errors.js';
import type { Entity } from './commands.js';
import type { WriteMode } from './validate.js';

export type PrepareWrite = (values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode) => void;

/** Identities: `type` is accepted but stored as typeId (always Default on create; Router is
 * never reachable through the API); an empty authPolicyId means `default`. */
function prepareIdentity(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  const requested = values.type;
  delete values.type;
  delete values.enrollment;
  if (mode === 'create') {
    values.typeId = 'Default';
    values.isDefaultAdmin = false;
  } else if (requested !== undefined) {
    if (requested === 'Router' && old?.typeId !== 'Router') throw fieldError('type', requested, 'may not change type to router');
    if (requested !== 'Router' && old?.typeId === 'Router') throw fieldError('type', requested, 'may not change type from router');
  }
  if ('authPolicyId' in values && (values.authPolicyId === null || values.authPolicyId === '')) {
    values.authPolicyId = 'default';
  }
  if (values.roleAttributes !== undefined) {
    for (const attr of values.roleAttributes as string[]) {
      if (attr.startsWith('#') || attr.startsWith('@')) {
        throw fieldError('roleAttributes', values.roleAttributes, 'role attributes may not be prefixed with # or @');
      }
    }
  }
}

export const PREPARE: Record<string, PrepareWrite> = {
  identities: prepareIdentity,
};
