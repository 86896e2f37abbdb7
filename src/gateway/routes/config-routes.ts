// Config routes beyond CRUD: the related lists of config types, configs and services, and an
// identity's service config overrides (`/identities/{id}/service-configs`). Admin only.

import { resourceOf } from '../../domain/registry.js';
import { sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { listParams, viewer } from './resource-routes.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

/** Each related list, the config query that answers it, and upstream's operation. */
const RELATED = [
  ['/config-types/:id/configs', 'configTypeConfigs', 'listConfigsForConfigType', 'Lists the configs of a specific config-type'],
  ['/configs/:id/services', 'configServices', 'listConfigServices', 'List services referenced by a config'],
  ['/services/:id/configs', 'serviceConfigs', 'listServiceConfig', 'List configs associated to a specific service'],
  ['/identities/:id/service-configs', 'identityServiceConfigs', 'listIdentitysServiceConfigs', 'List the service configs associated a specific identity'],
] as const;

/** Upstream's `serviceConfigsAssignList`. */
const ASSIGN_LIST = { type: 'array', items: objectSchema({ serviceId: STRING, configId: STRING }, ['serviceId', 'configId']) };

const overrides = resourceOf('identity-service-configs');

export const CONFIG_ROUTES: readonly HandRoute[] = [
  ...RELATED.map(([path, query, operationId, summary]): HandRoute => ({
    method: 'get', path, access: 'admin', operationId, summary, query: ['filter', 'limit', 'offset'],
    handler: (ctx, { node }) => sendList(ctx, node, { op: 'configQuery', query, id: ctx.params.id, params: listParams(ctx), viewer: viewer(ctx) }),
  })),
  {
    method: 'post', path: '/identities/:id/service-configs', access: 'admin', operationId: 'associateIdentitysServiceConfigs',
    summary: 'Associate service configs for a specific identity', body: ASSIGN_LIST,
    handler: async (ctx, { node }) => {
      await node.command(overrides, 'associate', ctx.params.id, { body: jsonBody(ctx) });
      sendEmpty(ctx);
    },
  },
  {
    method: 'delete', path: '/identities/:id/service-configs', access: 'admin', operationId: 'disassociateIdentitysServiceConfigs',
    summary: 'Remove associated service configs from a specific identity', body: ASSIGN_LIST,
    handler: async (ctx, { node }) => {
      await node.command(overrides, 'disassociate', ctx.params.id, { body: jsonBody(ctx) });
      sendEmpty(ctx);
    },
  },
];
