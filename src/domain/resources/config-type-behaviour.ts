// The config type kind's write and delete rules (hooks of its declaration): the built-in config
// types keep upstream's name and schema, since tunnelers and ZAC rely on them. Pure.

import { ApiError } from '../../errors.js';
import { isBuiltinConfigType } from '../builtin-config-types.js';
import type { Entity } from '../entity.js';

export function prepareConfigType(_values: Record<string, unknown>, old: Entity | undefined): void {
  if (old && isBuiltinConfigType(old.id)) {
    throw new ApiError('ENTITY_CAN_NOT_BE_UPDATED', { code: 'UNHANDLED', message: `cannot update the built-in config type ${String(old.name)}` });
  }
}

export function guardConfigTypeDelete(record: Entity): void {
  if (isBuiltinConfigType(record.id)) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: `cannot delete the built-in config type ${String(record.name)}` });
  }
}
