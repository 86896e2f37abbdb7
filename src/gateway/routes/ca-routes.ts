// Certificate authority operations beyond CRUD: proof-of-possession verification (a PEM body)
// and the CA's static enrollment JWT (`application/jwt`).

import type { Context } from 'koa';
import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendEmpty } from '../envelope.js';
import { requireAdmin } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';

const BODY_LIMIT_BYTES = 1024 * 1024;

export function addCaRoutes(router: Router, node: NodeClient): void {
  const cas = resourceOf('cas');
  router.post('/cas/:id/verify', async (ctx) => {
    requireAdmin(ctx);
    await node.command(cas, 'verify', ctx.params.id, { body: await pemBody(ctx) });
    sendEmpty(ctx);
  });
  router.get('/cas/:id/jwt', async (ctx) => {
    requireAdmin(ctx);
    const { jwt } = await node.command<{ jwt: string }>(cas, 'jwt', ctx.params.id);
    ctx.status = 200;
    ctx.type = 'application/jwt';
    ctx.body = jwt;
  });
}

/** The request body as text: parsed text bodies as they are; a PEM body the parser left unread
 * (`application/x-pem-file`) is read here, within the same 1 MiB limit. */
async function pemBody(ctx: Context): Promise<string> {
  const parsed = (ctx.request as unknown as { body?: unknown }).body;
  if (typeof parsed === 'string') return parsed;
  if (!ctx.is('application/x-pem-file') || ctx.req.readableEnded) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new ApiError('REQUEST_ENTITY_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
