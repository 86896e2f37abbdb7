// Authenticators: how an identity proves itself (updb username/password, certificates).
// Password hashes and salts are secret: stored, never presented.

import type { ResourceDecl } from '../resource.js';

export const authenticators: ResourceDecl = {
  kind: 'authenticators',
  entity: 'authenticator',
  actor: 'catalog',
  description: 'Authenticators of identities',
  ops: {},
  fields: {
    identityId: { type: 'string', write: 'server', filterable: true, indexed: true, ref: 'identities' },
    method: { type: 'enum', values: ['updb', 'cert'], write: 'server', filterable: true, sortable: true },
    username: { type: 'string', write: 'server', unique: true, filterable: true, sortable: true },
    fingerprint: { type: 'string', write: 'server', unique: true, filterable: true },
    passwordHash: { type: 'string', write: 'server', secret: true },
    salt: { type: 'string', write: 'server', secret: true },
  },
};
