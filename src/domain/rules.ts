// Cross-entity rules enforced inside apply: protected entities, delete cascades and id-list
// references. Pure data, evaluated deterministically by the replica.

import { ApiError } from '../errors.js';
import type { Entity } from './commands.js';
import { resourceOf } from './registry.js';
import { isBuiltinConfigType } from './builtin-config-types.js';
import { DEFAULT_AUTH_POLICY } from './resources/auth-policies.js';
import { ROUTER_IDENTITY_TYPE } from './router-rules.js';

/** When deleting an entity of `kind`, also delete every `target` whose `field` equals its id. */
export interface Cascade {
  target: string;
  field: string;
  /** The field may also hold ids of no such entity, so it is no reference: an API session's
   * authenticatorId names the ext-jwt signer or the external-id marker for some logins, and a
   * login racing its authenticator's deletion may still land. Upstream keeps such sessions too
   * (a plain string field, deleted with the authenticator by a delete-where). */
  loose?: true;
}

export const CASCADES: Record<string, Cascade[]> = {
  identities: [
    { target: 'api-sessions', field: 'identityId' },
    { target: 'authenticators', field: 'identityId' },
    { target: 'identity-service-configs', field: 'identityId' },
    { target: 'enrollments', field: 'identityId' },
    { target: 'mfas', field: 'identityId' },
  ],
  authenticators: [{ target: 'api-sessions', field: 'authenticatorId', loose: true }],
  'api-sessions': [
    { target: 'sessions', field: 'apiSessionId' },
    { target: 'api-session-certificates', field: 'apiSessionId' },
  ],
  services: [
    { target: 'identity-service-configs', field: 'serviceId' },
    { target: 'sessions', field: 'serviceId' },
    { target: 'terminators', field: 'service' },
  ],
  routers: [{ target: 'terminators', field: 'router' }],
  'edge-routers': [{ target: 'terminators', field: 'router' }],
  configs: [{ target: 'identity-service-configs', field: 'configId' }],
  cas: [{ target: 'enrollments', field: 'caId' }],
};

/**
 * A list field of `from` holding plain ids of `kind` (not `@id` role entries): every listed id
 * must exist when the list is written (400 on `field`); with `onePer`, no two listed entities
 * may share that field's value; deleting a `kind` entity strips its id from every such list.
 */
export interface ListReference {
  kind: string;
  from: string;
  field: string;
  onePer?: string;
}

export const LIST_REFERENCES: readonly ListReference[] = [
  { kind: 'configs', from: 'services', field: 'configs', onePer: 'configTypeId' },
];

/** Throws when the entity may not be deleted through the API. */
export function guardDelete(kind: string, record: Entity, system = false): void {
  if (system) return;
  if (record.isSystem === true) {
    const entity = resourceOf(kind).entity.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: `cannot delete system ${entity} in a non-system context` });
  }
  if (kind === 'identities' && record.typeId === ROUTER_IDENTITY_TYPE) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the identity of a tunneler-enabled edge router' });
  }
  if (kind === 'identities' && record.isDefaultAdmin === true) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'cannot delete the default admin' });
  }
  if (kind === 'auth-policies' && record.id === DEFAULT_AUTH_POLICY.id) {
    // Every identity without a policy of its own uses `default`: it is always referenced.
    throw new ApiError('CAN_NOT_DELETE_REFERENCED_ENTITY', { field: 'id', value: record.id, reason: 'the default auth policy cannot be deleted' });
  }
  if (kind === 'config-types' && isBuiltinConfigType(record.id)) {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: `cannot delete the built-in config type ${String(record.name)}` });
  }
  if (kind === 'controller-settings' && record.id === 'global') {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'the global controller settings cannot be deleted' });
  }
  if (kind === 'identity-types') {
    throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'identity types are fixed' });
  }
}
