// Identity operations beyond CRUD: disable / enable and the policy advisor.

import { sendDataJson, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { objectSchema, type HandRoute } from './route-table.js';

export const IDENTITY_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/identities/:id/disable', access: 'admin', operationId: 'disableIdentity', summary: 'Set an identity as disabled',
    body: objectSchema({ durationMinutes: { type: 'integer', description: 'Minutes until the identity is enabled again; 0 disables it until enabled' } }, ['durationMinutes']),
    handler: async (ctx, { node }) => {
      await node.identity('disable', ctx.params.id, { body: jsonBody(ctx) ?? {} });
      sendEmpty(ctx);
    },
  },
  {
    method: 'post', path: '/identities/:id/enable', access: 'admin', operationId: 'enableIdentity', summary: 'Clears all disabled state from an identity',
    handler: async (ctx, { node }) => {
      await node.identity('enable', ctx.params.id);
      sendEmpty(ctx);
    },
  },
  {
    method: 'get', path: '/identities/:id/policy-advice/:serviceId', access: 'admin', operationId: 'getIdentityPolicyAdvice',
    summary: 'Analyze policies relating the given identity and service',
    // As JSON text: serialised once, not copied across the bus and serialised again.
    handler: async (ctx, { node }) => sendDataJson(ctx, await node.queryJson({ op: 'policyAdvice', identityId: ctx.params.id, serviceId: ctx.params.serviceId })),
  },
];
