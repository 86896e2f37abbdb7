// Services: what may be reached. Selected by service policies and service edge router
// policies through roleAttributes; configs attach typed data.

import type { ResourceDecl } from '../resource.js';

export const services: ResourceDecl<'services'> = {
  kind: 'services',
  entity: 'service',
  actor: 'entity',
  present: ['access', 'configs'],
  selectable: true,
  description: 'Services',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  cascades: [
    { target: 'identity-service-configs', field: 'serviceId' },
    { target: 'sessions', field: 'serviceId' },
    { target: 'terminators', field: 'service' },
  ],
  listRefs: [{ field: 'configs', kind: 'configs', onePer: 'configTypeId' }],
  relations: [
    { child: 'service-policies', via: { policies: true } },
    { child: 'service-edge-router-policies', via: { policies: true } },
    { child: 'identities', via: { through: 'service-policies' } },
    { child: 'edge-routers', via: { through: 'service-edge-router-policies' } },
    { child: 'terminators', via: { index: 'service' } },
  ],
  columns: ['id', 'name', 'roleAttributes', 'encryptionRequired'],
  fields: {
    name: { type: 'string', required: true, unique: true, filterable: true, sortable: true, minLength: 1, maxLength: 1024 },
    encryptionRequired: { type: 'boolean', required: true, filterable: true, sortable: true },
    roleAttributes: { type: 'stringList', default: [], filterable: true, indexed: true, maxLength: 1024 },
    configs: { type: 'stringList', default: [], filterable: true, indexed: true },
    terminatorStrategy: { type: 'string', default: 'smartrouting', filterable: true, sortable: true, maxLength: 256 },
    maxIdleTimeMillis: { type: 'integer', default: 0, min: 0, filterable: true, sortable: true },
  },
};
