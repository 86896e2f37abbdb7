// Certificate authorities: third-party CAs whose client certificates may enroll (ottca, auto)
// and authenticate once the CA is verified. Behaviour lives in the CA catalog actor.

import type { ResourceDecl } from '../resource.js';

export const cas: ResourceDecl = {
  kind: 'cas',
  entity: 'ca',
  actor: 'catalog',
  description: 'Third-party certificate authorities',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    certPem: { type: 'string', required: true, createOnly: true, maxLength: 65536 },
    fingerprint: { type: 'string', write: 'server', unique: true, filterable: true, sortable: true },
    isVerified: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
    verificationToken: { type: 'string', write: 'server', nullable: true },
    isAutoCaEnrollmentEnabled: { type: 'boolean', required: true, filterable: true, sortable: true },
    isOttCaEnrollmentEnabled: { type: 'boolean', required: true, filterable: true, sortable: true },
    isAuthEnabled: { type: 'boolean', required: true, filterable: true, sortable: true },
    identityRoles: { type: 'stringList', required: true, filterable: true },
    identityNameFormat: { type: 'string', default: '[caName]-[commonName]', filterable: true },
    externalIdClaim: { type: 'object', nullable: true, default: null },
  },
};
