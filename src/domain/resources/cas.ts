// Certificate authorities: third-party CAs whose client certificates may enroll (ottca, auto)
// and authenticate once the CA is verified. Behaviour lives in the CA catalog actor.

import type { ResourceDecl } from '../resource.js';

/** Upstream's default identity name format for CA enrollments (no spaces). */
export const DEFAULT_IDENTITY_NAME_FORMAT = '[caName]-[commonName]';

/** Where an external id is read from a client certificate, and how it is matched and parsed. */
export const EXTERNAL_ID_LOCATIONS = ['COMMON_NAME', 'SAN_URI', 'SAN_EMAIL'] as const;
export const EXTERNAL_ID_MATCHERS = ['ALL', 'PREFIX', 'SUFFIX', 'SCHEME'] as const;
export const EXTERNAL_ID_PARSERS = ['NONE', 'SPLIT'] as const;

export const cas: ResourceDecl<'cas'> = {
  kind: 'cas',
  entity: 'ca',
  actor: 'catalog',
  ownActor: 'ca-catalog',
  present: ['credentials'],
  description: 'Third-party certificate authorities',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [{ target: 'enrollments', field: 'caId' }],
  columns: ['id', 'name', 'isVerified', 'isAutoCaEnrollmentEnabled'],
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
    identityNameFormat: { type: 'string', requiredOn: ['replace'], default: DEFAULT_IDENTITY_NAME_FORMAT, filterable: true },
    externalIdClaim: {
      type: 'object',
      nullable: true,
      default: null,
      description: 'all of location, matcher and parser are required when set; checked by ca-rules',
      properties: {
        location: { type: 'enum', values: EXTERNAL_ID_LOCATIONS, nullable: true },
        matcher: { type: 'enum', values: EXTERNAL_ID_MATCHERS, nullable: true },
        matcherCriteria: { type: 'string', nullable: true },
        parser: { type: 'enum', values: EXTERNAL_ID_PARSERS, nullable: true },
        parserCriteria: { type: 'string', nullable: true },
        index: { type: 'integer', nullable: true, min: 0 },
      },
    },
  },
};
