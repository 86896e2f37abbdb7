// Posture check routes beyond the derived CRUD: the fixed check types.

import { sendData } from '../envelope.js';
import type { ListReply } from '../../protocol/v1/query-messages.js';
import { listParams } from './resource-routes.js';
import type { HandRoute } from './route-table.js';

export const POSTURE_CHECK_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/posture-check-types', access: 'admin', operationId: 'listPostureCheckTypes', summary: 'List a subset of posture check types',
    query: ['filter', 'limit', 'offset'],
    handler: async (ctx, { node }) => {
      const page = (await node.query({ op: 'postureCheckTypes', params: listParams(ctx) })) as ListReply;
      sendData(ctx, page.data, page.meta);
    },
  },
  {
    method: 'get', path: '/posture-check-types/:id', access: 'admin', operationId: 'detailPostureCheckType', summary: 'Retrieves a single posture check type',
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'postureCheckTypes', id: ctx.params.id })),
  },
];
