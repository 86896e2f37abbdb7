// Identity operations beyond CRUD: disable / enable and the role-attribute list.

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { listParams, type ListReply } from './resource-routes.js';

export function addIdentityRoutes(router: Router, node: NodeClient): void {
  const identities = resourceOf('identities');
  router.post('/identities/:id/disable', async (ctx) => {
    requireAdmin(ctx);
    await node.command(identities, 'disable', ctx.params.id, { body: jsonBody(ctx) ?? {} });
    sendEmpty(ctx);
  });
  router.post('/identities/:id/enable', async (ctx) => {
    requireAdmin(ctx);
    await node.command(identities, 'enable', ctx.params.id);
    sendEmpty(ctx);
  });
  for (const [path, kind] of [['authenticators', 'authenticators'], ['api-sessions', 'api-sessions']] as const) {
    router.get(`/identities/:id/${path}`, async (ctx) => {
      requireAdmin(ctx);
      const parent = { kind: 'identities', id: ctx.params.id };
      const page = await node.query<ListReply>({ op: 'related', parent, kind, field: 'identityId', params: listParams(ctx) });
      sendData(ctx, page.data, page.meta);
    });
  }
  router.get('/identity-role-attributes', async (ctx) => {
    requireAdmin(ctx);
    const page = await node.query<ListReply>({ op: 'roleAttributes', kind: 'identities', params: listParams(ctx) });
    sendData(ctx, page.data, page.meta);
  });
}
