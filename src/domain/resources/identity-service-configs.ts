// Identity service configs: per-identity overrides of a service's config of one config type.
// Written only through `/identities/{id}/service-configs` (no generic routes).

import type { ResourceDecl } from '../resource.js';

export const identityServiceConfigs: ResourceDecl<'identity-service-configs'> = {
  kind: 'identity-service-configs',
  entity: 'identity-service-config',
  actor: 'catalog',
  ownActor: 'identity-service-config-catalog',
  description: 'Per-identity service config overrides',
  ops: {},
  fields: {
    identityId: { type: 'string', required: true, indexed: true, ref: 'identities' },
    serviceId: { type: 'string', required: true, indexed: true, ref: 'services' },
    configId: { type: 'string', required: true, indexed: true, ref: 'configs' },
    /** The config's type (fixed for a config): at most one override per identity, service and type. */
    configTypeId: { type: 'string', write: 'server' },
  },
};
