// Management operations on enrollments and authenticators beyond CRUD: refresh an enrollment,
// revert an authenticator to an enrollment (re-enroll), flag a certificate for early extension.

import type Router from '@koa/router';
import { newId } from '../../domain/ids.js';
import { resourceOf } from '../../domain/registry.js';
import { sendCreated, sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

export function addEnrollmentRoutes(router: Router, node: NodeClient): void {
  const enrollments = resourceOf('enrollments');
  router.post('/enrollments/:id/refresh', async (ctx) => {
    requireAdmin(ctx);
    const { id } = await node.command<{ id: string }>(enrollments, 'refresh', ctx.params.id, { body: jsonBody(ctx) ?? {} });
    sendData(ctx, { id, _links: { self: { href: `./enrollments/${encodeURIComponent(id)}` } } });
  });
  router.post('/authenticators/:id/re-enroll', async (ctx) => {
    requireAdmin(ctx);
    const { id } = await node.command<{ id: string }>(enrollments, 'reEnroll', newId(), { authenticatorId: ctx.params.id, body: jsonBody(ctx) ?? {} });
    sendCreated(ctx, 'enrollments', id);
  });
  router.post('/authenticators/:id/request-extend', async (ctx) => {
    requireAdmin(ctx);
    await node.command(resourceOf('authenticators'), 'requestExtend', ctx.params.id, { body: jsonBody(ctx) ?? {} });
    sendEmpty(ctx);
  });
}
