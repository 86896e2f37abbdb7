// Revocations are created under the revoked entity's id (upstream revocationCreate has `id`),
// with `expiresAt` set by the controller, and end the sessions they revoke (revocation-catalog);
// and the route path of a service session, which is always empty on Weft (no routers carry
// circuits). Admin only.

import { resourceOf } from '../../domain/registry.js';
import { REVOCATION_HOURS } from '../../domain/resources/revocations.js';
import { fieldError } from '../../errors.js';
import { sendCreated, sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const revocations = resourceOf('revocations');

export const REVOCATION_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/revocations', access: 'admin', operationId: 'createRevocation', summary: 'Create a Revocation',
    body: objectSchema({ id: STRING, type: { type: 'string', enum: ['JTI', 'IDENTITY', 'API_SESSION'] }, tags: { type: 'object', additionalProperties: true } }, ['id', 'type']),
    ok: { status: 201, description: 'The revocation has been created' },
    handler: async (ctx, { node }) => {
      const { id, type = 'JTI', tags } = (jsonBody(ctx) ?? {}) as Record<string, unknown>;
      if (typeof id !== 'string' || id === '') throw fieldError('id', id ?? null, 'id is required');
      // As upstream: an identity must exist, a JWT id is a UUID. API session ids are Weft's own
      // (upstream wants UUIDs, its OIDC sessions' ids), so any id is taken.
      if (type === 'IDENTITY') await node.queryJson({ op: 'get', kind: 'identities', id });
      if (type === 'JTI' && !UUID.test(id)) throw fieldError('id', id, 'must be a valid UUID v4');
      const expiresAt = new Date(Date.now() + REVOCATION_HOURS * 3_600_000).toISOString();
      await node.command(revocations, 'create', id, { body: { type, expiresAt, ...(tags === undefined ? {} : { tags }) } });
      sendCreated(ctx, 'revocations', id);
    },
  },
  {
    method: 'get', path: '/sessions/:id/route-path', access: 'admin', operationId: 'detailSessionRoutePath', summary: "Retrieves a single session's router path",
    handler: async (ctx, { node }) => {
      await node.queryJson({ op: 'get', kind: 'sessions', id: ctx.params.id });
      sendData(ctx, { routePath: [] });
    },
  },
];
