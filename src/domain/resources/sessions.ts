// Service sessions: an identity's grant to dial or bind one service within one API session,
// created through the client API after the posture checks pass; revoked (deleted) when they
// stop passing. Stored in the log so every node and the management API see them.

import type { ResourceDecl } from '../resource.js';

export const SESSION_TYPES = ['Dial', 'Bind'] as const;

export const sessions: ResourceDecl<'sessions'> = {
  kind: 'sessions',
  entity: 'session',
  actor: 'catalog',
  present: ['sessions'],
  description: 'Service sessions: dial or bind grants of an API session, checked against posture',
  ops: { list: 'admin', get: 'admin', delete: 'admin' },
  fields: {
    apiSessionId: { type: 'string', write: 'server', filterable: true, sortable: true, indexed: true, ref: 'api-sessions' },
    identityId: { type: 'string', write: 'server', filterable: true, sortable: true, indexed: true, ref: 'identities' },
    serviceId: { type: 'string', write: 'server', filterable: true, sortable: true, indexed: true, ref: 'services' },
    type: { type: 'enum', values: SESSION_TYPES, write: 'server', filterable: true, sortable: true },
    token: { type: 'string', write: 'server', unique: true },
    /** The service policies whose posture checks all passed when the session was granted. */
    servicePolicies: { type: 'stringList', write: 'server', default: [], indexed: true },
  },
};
