// Enrollments: one-time credentials an identity redeems for an authenticator (ott: a signed
// certificate; ottca: a certificate from a third-party CA; updb: a password). Routers keep their
// own enrollment on the router record. Behaviour lives in the enrollment catalog actor.

import type { ResourceDecl } from '../resource.js';

/** The identity enrollment methods (routers use erott / trott on their own records). */
export const ENROLLMENT_METHODS = ['ott', 'ottca', 'updb'] as const;
export type EnrollmentMethod = (typeof ENROLLMENT_METHODS)[number];

export const enrollments: ResourceDecl<'enrollments'> = {
  kind: 'enrollments',
  entity: 'enrollment',
  actor: 'catalog',
  ownActor: 'enrollment-catalog',
  present: ['enrollments'],
  description: 'Outstanding identity enrollments (ott, ottca, updb)',
  ops: { list: 'admin', get: 'admin', create: 'admin', delete: 'admin' },
  fields: {
    method: { type: 'enum', values: ENROLLMENT_METHODS, required: true, createOnly: true, filterable: true, sortable: true, indexed: true },
    identityId: { type: 'string', required: true, createOnly: true, filterable: true, sortable: true, indexed: true, ref: 'identities' },
    caId: { type: 'string', nullable: true, default: null, createOnly: true, filterable: true, sortable: true, indexed: true, ref: 'cas' },
    username: { type: 'string', nullable: true, default: null, createOnly: true, minLength: 4, maxLength: 100, filterable: true, sortable: true },
    expiresAt: { type: 'datetime', required: true, filterable: true, sortable: true, indexed: true },
    token: { type: 'string', write: 'server', unique: true, filterable: true, description: 'the one-time token (the JWT `jti`)' },
    jwt: { type: 'string', write: 'server', description: 'the enrollment JWT, signed by the controller' },
  },
};
