// API sessions: the result of a login. The token itself is never stored, only its SHA-256.

import type { ResourceDecl } from '../resource.js';

export const apiSessions: ResourceDecl<'api-sessions'> = {
  kind: 'api-sessions',
  entity: 'api-session',
  actor: 'catalog',
  present: ['entity-refs', 'sessions', 'enrollments', 'mfa'],
  description: 'API sessions created by authentication',
  ops: { list: 'admin', get: 'admin', delete: 'admin' },
  forbiddenToNonAdmins: ['delete'],
  cascades: [
    { target: 'sessions', field: 'apiSessionId' },
    { target: 'api-session-certificates', field: 'apiSessionId' },
  ],
  columns: ['id', 'identityId', 'ipAddress', 'lastActivityAt'],
  fields: {
    identityId: { type: 'string', write: 'server', filterable: true, sortable: true, indexed: true, ref: 'identities' },
    tokenHash: { type: 'string', write: 'server', unique: true, secret: true },
    authenticatorId: { type: 'string', write: 'server', filterable: true, indexed: true },
    ipAddress: { type: 'string', write: 'server', filterable: true, sortable: true },
    configTypes: { type: 'stringList', write: 'server' },
    isMfaRequired: { type: 'boolean', write: 'server', filterable: true },
    isMfaComplete: { type: 'boolean', write: 'server', filterable: true },
    lastActivityAt: { type: 'datetime', write: 'server', filterable: true, sortable: true, indexed: true },
  },
};
