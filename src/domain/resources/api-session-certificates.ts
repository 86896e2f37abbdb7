// Ephemeral certificates of an API session: signed from the session's CSR by the node CA, valid
// for 12 hours, gone with their session. Served under the client API's
// /current-api-session/certificates only (no management operations).

import type { ResourceDecl } from '../resource.js';

/** Validity of an API session certificate (upstream: 12 hours). */
export const SESSION_CERT_HOURS = 12;

export const apiSessionCertificates: ResourceDecl<'api-session-certificates'> = {
  kind: 'api-session-certificates',
  entity: 'api-session-certificate',
  actor: 'catalog',
  ownActor: 'api-session-certificate-catalog',
  description: 'Ephemeral certificates of API sessions (served under /current-api-session/certificates)',
  ops: {},
  fields: {
    apiSessionId: { type: 'string', write: 'server', filterable: true, indexed: true, ref: 'api-sessions' },
    subject: { type: 'string', write: 'server', filterable: true, sortable: true },
    fingerprint: { type: 'string', write: 'server', filterable: true },
    validFrom: { type: 'datetime', write: 'server', filterable: true, sortable: true },
    validTo: { type: 'datetime', write: 'server', filterable: true, sortable: true },
    certificate: { type: 'string', write: 'server' },
  },
};
