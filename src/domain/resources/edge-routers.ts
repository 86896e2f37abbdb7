// Edge routers: the routers endpoints connect through. Selected by edge router policies and
// service edge router policies; enrolled with a one-time JWT.

import type { ResourceDecl } from '../resource.js';

export const edgeRouters: ResourceDecl<'edge-routers'> = {
  kind: 'edge-routers',
  entity: 'edge-router',
  actor: 'catalog',
  ownActor: 'edge-router-catalog',
  present: ['router-presence'],
  selectable: true,
  description: 'Edge routers',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [{ target: 'terminators', field: 'router' }],
  relations: [
    { child: 'edge-router-policies', via: { policies: true } },
    { child: 'service-edge-router-policies', via: { policies: true } },
    { child: 'identities', via: { through: 'edge-router-policies' } },
    { child: 'services', via: { through: 'service-edge-router-policies' } },
  ],
  columns: ['id', 'name', 'isOnline', 'isVerified', 'roleAttributes'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    roleAttributes: { type: 'stringList', default: [], filterable: true, indexed: true, maxLength: 1024 },
    cost: { type: 'integer', min: 0, max: 65535, default: 0, filterable: true, sortable: true },
    isTunnelerEnabled: { type: 'boolean', default: false, filterable: true, sortable: true, indexed: true },
    noTraversal: { type: 'boolean', default: false, filterable: true, sortable: true },
    disabled: { type: 'boolean', default: false, filterable: true, sortable: true },
    appData: { type: 'tags', nullable: true, default: {} },
    ctrlChanListeners: { type: 'object', default: {} },
    isVerified: { type: 'boolean', write: 'server', default: false, filterable: true, sortable: true },
    fingerprint: { type: 'string', write: 'server', nullable: true, filterable: true, indexed: true },
    certPem: { type: 'string', write: 'server', nullable: true },
    enrollmentToken: { type: 'string', write: 'server', nullable: true, unique: true, description: 'presented while unverified, as upstream' },
    enrollmentJwt: { type: 'string', write: 'server', nullable: true },
    enrollmentCreatedAt: { type: 'datetime', write: 'server', nullable: true },
    enrollmentExpiresAt: { type: 'datetime', write: 'server', nullable: true },
  },
};
