// Router operations beyond CRUD: edge router re-enrollment, `/transit-routers` (the same
// routers as `/routers`) and `/controllers` (the running nodes).

import { resourceOf } from '../../domain/registry.js';
import { sendData, sendEmpty } from '../envelope.js';
import { resourceRoutes } from './resource-routes.js';
import type { HandRoute, Route } from './route-table.js';

const TRANSIT = {
  list: ['listTransitRouters', 'List routers'],
  get: ['detailTransitRouter', 'Retrieves a single router'],
  create: ['createTransitRouter', 'Create a router resource'],
  replace: ['updateTransitRouter', 'Update all fields on a router'],
  patch: ['patchTransitRouter', 'Update the supplied fields on a router'],
  delete: ['deleteTransitRouter', 'Delete a router'],
} as const;

export const ROUTER_ROUTES: readonly Route[] = [
  {
    method: 'post', path: '/edge-routers/:id/re-enroll', access: 'admin', operationId: 'reEnrollEdgeRouter', summary: 'Re-enroll an edge router',
    handler: async (ctx, { node }) => {
      await node.command(resourceOf('edge-routers'), 'reEnroll', ctx.params.id);
      sendEmpty(ctx);
    },
  },
  // The routers' own routes under a second path, described with upstream's transit router operations.
  ...resourceRoutes(resourceOf('routers'), 'transit-routers').map(({ declared: _, op, ...route }): HandRoute => {
    const [operationId, summary] = TRANSIT[op];
    return { ...route, operationId, summary, ...(route.method === 'get' || route.method === 'delete' ? {} : { body: { $ref: `#/definitions/router${op === 'create' ? 'Create' : op === 'replace' ? 'Update' : 'Patch'}` } }) };
  }),
  {
    method: 'get', path: '/controllers', access: 'authenticated', operationId: 'listControllers', summary: 'List controllers',
    handler: async (ctx, { node }) => {
      const page = await node.query({ op: 'controllers' });
      sendData(ctx, page.data, page.meta);
    },
  },
];
