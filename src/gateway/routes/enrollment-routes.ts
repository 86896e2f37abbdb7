// Management operations on enrollments and authenticators beyond CRUD: refresh an enrollment,
// revert an authenticator to an enrollment (re-enroll), flag a certificate for early extension.

import { newId } from '../../domain/ids.js';
import { resourceOf } from '../../domain/registry.js';
import { sendCreated, sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { objectSchema, type HandRoute } from './route-table.js';

const DATE_TIME = { type: 'string', format: 'date-time' };
const enrollments = resourceOf('enrollments');

export const ENROLLMENT_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/enrollments/:id/refresh', access: 'admin', operationId: 'refreshEnrollment',
    summary: "Refreshes an enrollment record's expiration window", body: objectSchema({ expiresAt: DATE_TIME }, ['expiresAt']),
    handler: async (ctx, { node }) => {
      const { id } = await node.command<{ id: string }>(enrollments, 'refresh', ctx.params.id, { body: jsonBody(ctx) ?? {} });
      sendData(ctx, { id, _links: { self: { href: `./enrollments/${encodeURIComponent(id)}` } } });
    },
  },
  {
    method: 'post', path: '/authenticators/:id/re-enroll', access: 'admin', operationId: 'reEnrollAuthenticator',
    summary: 'Reverts an authenticator to an enrollment', body: objectSchema({ expiresAt: DATE_TIME }, ['expiresAt']),
    ok: { status: 201, description: 'The enrollment has been created' },
    handler: async (ctx, { node }) => {
      const { id } = await node.command<{ id: string }>(enrollments, 'reEnroll', newId(), { authenticatorId: ctx.params.id, body: jsonBody(ctx) ?? {} });
      sendCreated(ctx, 'enrollments', id);
    },
  },
  {
    method: 'post', path: '/authenticators/:id/request-extend', access: 'admin', operationId: 'requestExtendAuthenticator',
    summary: 'Indicate a certificate authenticator should be extended and optionally key rolled on next authentication.',
    body: objectSchema({ rollKeys: { type: 'boolean' } }),
    handler: async (ctx, { node }) => {
      await node.command(resourceOf('authenticators'), 'requestExtend', ctx.params.id, { body: jsonBody(ctx) ?? {} });
      sendEmpty(ctx);
    },
  },
];
