// Terminators: where a service's traffic leaves the network (router, binding, address). Routers
// report them upstream; on Weft, without a data plane, admins create them by hand. Deleting the
// service or the router deletes its terminators (their declarations' `cascades`).

import type { ResourceDecl } from '../resource.js';

export const terminators: ResourceDecl<'terminators'> = {
  kind: 'terminators',
  entity: 'terminator',
  actor: 'catalog',
  ownActor: 'terminator-catalog',
  present: ['router-presence'],
  description: 'Terminators: where a service is hosted (router, binding, address)',
  ops: { list: 'admin', get: 'admin', create: 'admin', replace: 'admin', patch: 'admin', delete: 'admin' },
  fields: {
    service: { type: 'string', required: true, filterable: true, sortable: true, indexed: true, minLength: 1, description: 'The service id' },
    router: { type: 'string', required: true, filterable: true, sortable: true, indexed: true, minLength: 1, description: 'The router or edge router id' },
    binding: { type: 'string', required: true, filterable: true, sortable: true },
    address: { type: 'string', required: true, filterable: true, sortable: true },
    identity: { type: 'string', default: '', filterable: true, sortable: true },
    identitySecret: { type: 'string', nullable: true, secret: true, description: 'base64 bytes' },
    cost: { type: 'integer', min: 0, max: 65535, default: 0, filterable: true, sortable: true },
    precedence: { type: 'enum', values: ['default', 'required', 'failed'], default: 'default', filterable: true, sortable: true },
  },
};
