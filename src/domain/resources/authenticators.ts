// Authenticators: how an identity proves itself (updb username/password, certificates).
// Passwords arrive in bodies but are stored only as Argon2id hash + salt, never presented.

import type { ResourceDecl } from '../resource.js';

export const authenticators: ResourceDecl<'authenticators'> = {
  kind: 'authenticators',
  entity: 'authenticator',
  actor: 'catalog',
  ownActor: 'authenticator-catalog',
  present: ['entity-refs', 'enrollments'],
  description: 'Authenticators of identities (updb and certificate)',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [{ target: 'api-sessions', field: 'authenticatorId', loose: true }],
  columns: ['id', 'method', 'identityId', 'username'],
  fields: {
    method: { type: 'enum', values: ['updb', 'cert'], required: true, createOnly: true, filterable: true, sortable: true, indexed: true },
    identityId: { type: 'string', required: true, createOnly: true, filterable: true, sortable: true, indexed: true, ref: 'identities' },
    username: { type: 'string', requiredOn: ['replace'], minLength: 4, maxLength: 100, unique: true, filterable: true, sortable: true },
    password: { type: 'string', requiredOn: ['replace'], minLength: 5, maxLength: 100, secret: true, transient: true },
    certPem: { type: 'string', createOnly: true, maxLength: 65536 },
    fingerprint: { type: 'string', write: 'server', unique: true, filterable: true, sortable: true },
    passwordHash: { type: 'string', write: 'server', secret: true },
    salt: { type: 'string', write: 'server', secret: true },
    // Certificates issued by the network (enrollment, extension) and their extension state.
    isIssuedByNetwork: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
    isExtendRequested: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
    isKeyRollRequested: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
    extendRequestedAt: { type: 'datetime', write: 'server', nullable: true, filterable: true, sortable: true },
    lastExtendRolledKeys: { type: 'boolean', write: 'server', default: false },
    /** Not presented (as upstream): the extended certificate until the client verifies it. */
    unverifiedCertPem: { type: 'string', write: 'server', nullable: true, secret: true },
    unverifiedFingerprint: { type: 'string', write: 'server', nullable: true, secret: true },
    publicKeyPrint: { type: 'string', write: 'server', nullable: true, secret: true },
  },
};
