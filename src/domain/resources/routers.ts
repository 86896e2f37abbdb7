// Transit routers (`/routers`, also served as `/transit-routers`): fabric routers without edge.

import type { ResourceDecl } from '../resource.js';

export const routers: ResourceDecl<'routers'> = {
  kind: 'routers',
  entity: 'router',
  actor: 'catalog',
  ownActor: 'router-catalog',
  present: ['router-presence'],
  description: 'Routers (transit routers)',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [{ target: 'terminators', field: 'router' }],
  columns: ['id', 'name', 'isOnline', 'isVerified'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    cost: { type: 'integer', min: 0, max: 65535, default: 0, filterable: true, sortable: true },
    noTraversal: { type: 'boolean', default: false, filterable: true, sortable: true },
    disabled: { type: 'boolean', default: false, filterable: true, sortable: true },
    ctrlChanListeners: { type: 'object', default: {} },
    isVerified: { type: 'boolean', write: 'server', default: false, filterable: true },
    fingerprint: { type: 'string', write: 'server', nullable: true, filterable: true, indexed: true },
    enrollmentToken: { type: 'string', write: 'server', nullable: true, unique: true, description: 'presented while unverified, as upstream' },
    enrollmentJwt: { type: 'string', write: 'server', nullable: true },
    enrollmentCreatedAt: { type: 'datetime', write: 'server', nullable: true },
    enrollmentExpiresAt: { type: 'datetime', write: 'server', nullable: true },
  },
};
