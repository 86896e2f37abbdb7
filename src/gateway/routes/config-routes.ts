// Config routes beyond CRUD: the related lists of config types, configs and services, and an
// identity's service config overrides (`/identities/{id}/service-configs`). Admin only.

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { listParams, viewer } from './resource-routes.js';

/** Each related list and the config query that answers it. */
const RELATED = [
  ['/config-types/:id/configs', 'configTypeConfigs'],
  ['/configs/:id/services', 'configServices'],
  ['/services/:id/configs', 'serviceConfigs'],
  ['/identities/:id/service-configs', 'identityServiceConfigs'],
] as const;

export function addConfigRoutes(router: Router, node: NodeClient): void {
  for (const [path, query] of RELATED) {
    router.get(path, async (ctx) => {
      requireAdmin(ctx);
      await sendList(ctx, node, { op: 'configQuery', query, id: ctx.params.id, params: listParams(ctx), viewer: viewer(ctx) });
    });
  }
  const overrides = resourceOf('identity-service-configs');
  router.post('/identities/:id/service-configs', async (ctx) => {
    requireAdmin(ctx);
    await node.command(overrides, 'associate', ctx.params.id, { body: jsonBody(ctx) });
    sendEmpty(ctx);
  });
  router.delete('/identities/:id/service-configs', async (ctx) => {
    requireAdmin(ctx);
    await node.command(overrides, 'disassociate', ctx.params.id, { body: jsonBody(ctx) });
    sendEmpty(ctx);
  });
}
