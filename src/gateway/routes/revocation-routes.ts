// Revocations are created under the revoked entity's id (upstream revocationCreate has `id`),
// with `expiresAt` set by the controller; and the route path of a service session, which is
// always empty on Weft (no routers carry circuits). Admin only.

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { REVOCATION_HOURS } from '../../domain/resources/revocations.js';
import { fieldError } from '../../errors.js';
import { sendCreated, sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addRevocationRoutes(router: Router, node: NodeClient): void {
  const revocations = resourceOf('revocations');
  router.post('/revocations', async (ctx) => {
    requireAdmin(ctx);
    const { id, type, tags } = (jsonBody(ctx) ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') throw fieldError('id', id ?? null, 'id is required');
    const expiresAt = new Date(Date.now() + REVOCATION_HOURS * 3_600_000).toISOString();
    await node.command(revocations, 'create', id, { body: { type, expiresAt, ...(tags === undefined ? {} : { tags }) } });
    sendCreated(ctx, 'revocations', id);
  });
  router.get('/sessions/:id/route-path', async (ctx) => {
    requireAdmin(ctx);
    await node.queryJson({ op: 'get', kind: 'sessions', id: ctx.params.id });
    sendData(ctx, { routePath: [] });
  });
}
