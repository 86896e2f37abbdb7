// Certificate authority operations beyond CRUD: proof-of-possession verification (a PEM body)
// and the CA's static enrollment JWT (`application/jwt`).

import type { Context } from 'koa';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendEmpty } from '../envelope.js';
import { STRING, type HandRoute } from './route-table.js';

const BODY_LIMIT_BYTES = 1024 * 1024;
const cas = resourceOf('cas');

export const CA_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/cas/:id/verify', access: 'admin', operationId: 'verifyCa', summary: 'Verify a CA',
    body: { ...STRING, description: 'A PEM certificate signed by the CA, its common name the CA\'s verificationToken' }, consumes: ['text/plain', 'application/x-pem-file'],
    handler: async (ctx, { node }) => {
      await node.command(cas, 'verify', ctx.params.id, { body: await pemBody(ctx) });
      sendEmpty(ctx);
    },
  },
  {
    method: 'get', path: '/cas/:id/jwt', access: 'admin', operationId: 'getCaJwt', summary: 'Retrieve the enrollment JWT for a CA',
    ok: { description: 'The JWT', produces: 'application/jwt', data: STRING },
    handler: async (ctx, { node }) => {
      const { jwt } = await node.command<{ jwt: string }>(cas, 'jwt', ctx.params.id);
      ctx.status = 200;
      ctx.type = 'application/jwt';
      ctx.body = jwt;
    },
  },
];

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
