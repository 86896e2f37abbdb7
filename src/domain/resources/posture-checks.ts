// Posture checks: conditions an endpoint must meet (OS, MAC, domain, process, MFA). Selected by
// service policies' postureCheckRoles. Type-specific fields are validated by domain/posture.

import { POSTURE_CHECK_TYPES, PROCESS_SEMANTICS } from '../posture/index.js';
import type { FieldSpec, ResourceDecl } from '../resource.js';

export { POSTURE_CHECK_TYPES };

/**
 * A field only some check types have. It is written from the body by the posture-check
 * catalog actor after `validatePostureFields`, never by the generic body validation, hence
 * `write: 'server'`; a record stores only the fields of its own type.
 */
const typed = (typeId: string, spec: Omit<FieldSpec, 'write'>): FieldSpec => ({
  ...spec,
  write: 'server',
  description: `${typeId} checks only. ${spec.description ?? ''}`.trim(),
});

export const postureChecks: ResourceDecl<'posture-checks'> = {
  kind: 'posture-checks',
  entity: 'posture-check',
  actor: 'catalog',
  ownActor: 'posture-check-catalog',
  present: ['posture-checks'],
  selectable: true,
  description: 'Posture checks',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  forbiddenToNonAdmins: ['delete'],
  columns: ['id', 'name', 'typeId', 'roleAttributes'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    typeId: { type: 'enum', values: POSTURE_CHECK_TYPES, required: true, createOnly: true, filterable: true, sortable: true, indexed: true },
    roleAttributes: { type: 'stringList', default: [], filterable: true, indexed: true, maxLength: 1024 },
    // Starts at 1 and grows by one on every replace or patch. Not a query symbol upstream.
    version: { type: 'integer', write: 'server', default: 1 },
    operatingSystems: typed('OS', { type: 'object', description: 'A list of {type, versions}: OS types and semver ranges.' }),
    macAddresses: typed('MAC', { type: 'stringList', description: 'Stored as lowercase hex without separators.' }),
    domains: typed('DOMAIN', { type: 'stringList' }),
    process: typed('PROCESS', { type: 'object', description: '{osType, path, hashes, signerFingerprint}.' }),
    semantic: typed('PROCESS_MULTI', { type: 'enum', values: PROCESS_SEMANTICS, description: 'OneOf is evaluated as AnyOf.' }),
    processes: typed('PROCESS_MULTI', { type: 'object', description: 'A list of {osType, path, hashes, signerFingerprints}.' }),
    timeoutSeconds: typed('MFA', { type: 'integer', description: '-1 = no timeout.' }),
    // Upstream's posture check store has public symbols for these two.
    promptOnWake: typed('MFA', { type: 'boolean', filterable: true, sortable: true }),
    promptOnUnlock: typed('MFA', { type: 'boolean', filterable: true, sortable: true }),
    ignoreLegacyEndpoints: typed('MFA', { type: 'boolean' }),
  },
};
