// Management views of an identity's volatile posture state, answered by its identity actor:
// `/identities/{id}/posture-data` and `/identities/{id}/failed-service-requests` (last 50).

import { sendData } from '../envelope.js';
import type { HandRoute } from './route-table.js';

export const POSTURE_DATA_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/identities/:id/posture-data', access: 'admin', operationId: 'getIdentityPostureData',
    summary: 'Retrieve the curent posture data for a specific identity.',
    handler: async (ctx, { node }) => sendData(ctx, await node.identity('postureData', ctx.params.id)),
  },
  {
    method: 'get', path: '/identities/:id/failed-service-requests', access: 'admin', operationId: 'getIdentityFailedServiceRequests',
    summary: 'Retrieve a list of the most recent service failure requests due to posture checks',
    handler: async (ctx, { node }) => sendData(ctx, await node.identity('failedServiceRequests', ctx.params.id)),
  },
];
