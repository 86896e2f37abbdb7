// External JWT signers: third-party token issuers whose JWTs log identities in
// (`/authenticate?method=ext-jwt`). Keys come from one certificate or a JWKS endpoint.

import type { ResourceDecl } from '../resource.js';

/** The claim naming the identity when a signer sets none (a JSON pointer without its `/`). */
export const DEFAULT_CLAIMS_PROPERTY = 'sub';

export const externalJwtSigners: ResourceDecl<'external-jwt-signers'> = {
  kind: 'external-jwt-signers',
  entity: 'external-jwt-signer',
  actor: 'catalog',
  ownActor: 'external-jwt-signer-catalog',
  present: ['credentials'],
  description: 'External JWT signers trusted for ext-jwt authentication',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  columns: ['id', 'name', 'issuer', 'enabled'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    certPem: { type: 'string', nullable: true, default: null, maxLength: 65536, description: 'exclusive with jwksEndpoint' },
    jwksEndpoint: { type: 'string', nullable: true, default: null, maxLength: 2048, filterable: true, description: 'https, or http on loopback only' },
    kid: { type: 'string', nullable: true, default: null, unique: true, filterable: true, sortable: true, maxLength: 1024 },
    issuer: { type: 'string', required: true, unique: true, filterable: true, sortable: true, maxLength: 2048 },
    audience: { type: 'string', required: true, filterable: true, sortable: true, maxLength: 2048 },
    claimsProperty: { type: 'string', nullable: true, default: DEFAULT_CLAIMS_PROPERTY, filterable: true, maxLength: 1024 },
    useExternalId: { type: 'boolean', nullable: true, default: false, filterable: true, sortable: true },
    enabled: { type: 'boolean', required: true, filterable: true, sortable: true },
    externalAuthUrl: { type: 'string', nullable: true, default: null, maxLength: 2048, filterable: true },
    clientId: { type: 'string', nullable: true, default: null, maxLength: 1024 },
    scopes: { type: 'stringList', nullable: true, default: [], maxLength: 1024 },
    targetToken: { type: 'enum', values: ['ACCESS', 'ID'], nullable: true, default: 'ACCESS' },
    enrollToCertEnabled: { type: 'boolean', nullable: true, default: false },
    enrollToTokenEnabled: { type: 'boolean', nullable: true, default: false },
    enrollNameClaimsSelector: { type: 'string', nullable: true, default: '' },
    enrollAttributeClaimsSelector: { type: 'string', nullable: true, default: '' },
    enrollAuthPolicyId: { type: 'string', nullable: true, default: null, indexed: true, ref: 'auth-policies' },
    fingerprint: { type: 'string', write: 'server', nullable: true, unique: true, filterable: true, sortable: true },
    commonName: { type: 'string', write: 'server', filterable: true, sortable: true },
    notBefore: { type: 'datetime', write: 'server', nullable: true, filterable: true, sortable: true },
    notAfter: { type: 'datetime', write: 'server', nullable: true, filterable: true, sortable: true },
  },
};
