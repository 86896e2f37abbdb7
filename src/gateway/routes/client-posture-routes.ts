// Client-API routes of endpoints: the caller's services with their posture queries, posture
// responses (single and bulk), and the caller's service sessions. Posture state lives in the
// caller's identity actor; reads go to this node's query handler with the actor's snapshot.

import type { Context } from 'koa';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller, type Caller } from '../middleware/session.js';
import { sendList } from '../list-answer.js';
import { listParams, viewer } from './resource-routes.js';
import { objectSchema, STRING, type HandRoute, type RouteContext, type RouteDeps } from './route-table.js';

type Node = RouteDeps['node'];

const snapshot = (node: Node, caller: Caller) => node.identity('postureSnapshot', caller.identityId, { apiSessionId: caller.apiSessionId });

/** The caller's services (or one), with its posture snapshot. */
async function services(ctx: Context, node: Node, id?: string) {
  const caller = requireCaller(ctx);
  return {
    op: 'clientServices' as const,
    id,
    identityId: caller.identityId,
    apiSessionId: caller.apiSessionId,
    posture: await snapshot(node, caller),
    params: listParams(ctx),
    viewer: viewer(ctx),
  };
}

const submit = (single: boolean) => async (ctx: RouteContext, { node }: RouteDeps) => {
  const caller = requireCaller(ctx);
  const result = await node.identity('postureResponses', caller.identityId, {
    apiSessionId: caller.apiSessionId,
    responses: jsonBody(ctx) ?? null,
    single,
    source: 'rest',
  });
  // As the client spec has them: 201 for a single response, 200 for the bulk form.
  sendData(ctx, { services: result.services }, {}, single ? 201 : 200);
};

/** Upstream's `postureResponseCreate`: the check's id and type, with that type's fields. */
const POSTURE_RESPONSE = { ...objectSchema({ id: STRING, typeId: { type: 'string', enum: ['OS', 'PROCESS', 'DOMAIN', 'MAC', 'MFA', 'PROCESS_MULTI'] } }, ['id', 'typeId']), additionalProperties: true };
const LIST_QUERY = ['filter', 'limit', 'offset'] as const;

export const CLIENT_POSTURE_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/services', access: 'authenticated', operationId: 'listServices', summary: 'List services', query: [...LIST_QUERY, 'configTypes'],
    handler: async (ctx, { node }) => sendList(ctx, node, await services(ctx, node)),
  },
  {
    method: 'get', path: '/services/:id', access: 'authenticated', operationId: 'detailService', summary: 'Retrieves a single service', query: ['configTypes'],
    handler: async (ctx, { node }) => sendData(ctx, await node.query(await services(ctx, node, ctx.params.id))),
  },
  {
    method: 'post', path: '/posture-response', access: 'authenticated', operationId: 'createPostureResponse', summary: 'Submit a posture response to a posture query',
    body: POSTURE_RESPONSE, ok: { status: 201, description: 'The services whose posture timeouts changed' }, handler: submit(true),
  },
  {
    method: 'post', path: '/posture-response-bulk', access: 'authenticated', operationId: 'createPostureResponseBulk', summary: 'Submit multiple posture responses',
    body: { type: 'array', items: POSTURE_RESPONSE }, ok: { description: 'The services whose posture timeouts changed' }, handler: submit(false),
  },
  {
    method: 'post', path: '/sessions', access: 'authenticated', operationId: 'createSession', summary: 'Create a session resource',
    body: objectSchema({ serviceId: STRING, type: { type: 'string', enum: ['Dial', 'Bind'] }, tags: { type: 'object', additionalProperties: true } }),
    ok: { status: 201, description: 'The new session' },
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      const created = await node.identity('createSession', caller.identityId, {
        apiSessionId: caller.apiSessionId,
        body: jsonBody(ctx) ?? {},
      });
      sendData(ctx, await sessions(ctx, node, caller, created.id), {}, 201);
    },
  },
  {
    method: 'get', path: '/sessions', access: 'authenticated', operationId: 'listSessions', summary: 'List sessions', query: LIST_QUERY,
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      await sendList(ctx, node, { op: 'clientSessions', identityId: caller.identityId, isAdmin: caller.isAdmin, params: listParams(ctx), viewer: viewer(ctx) });
    },
  },
  {
    method: 'get', path: '/sessions/:id', access: 'authenticated', operationId: 'detailSession', summary: 'Retrieves a single session',
    handler: async (ctx, { node }) => sendData(ctx, await sessions(ctx, node, requireCaller(ctx), ctx.params.id)),
  },
  {
    method: 'delete', path: '/sessions/:id', access: 'authenticated', operationId: 'deleteSession', summary: 'Delete a session',
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      await node.identity('deleteSession', caller.identityId, { sessionId: ctx.params.id, isAdmin: caller.isAdmin });
      sendEmpty(ctx);
    },
  },
];

/** The caller's sessions (all sessions for an admin, as upstream), or one of them. */
function sessions(ctx: Context, node: Node, caller: Caller, id?: string): Promise<unknown> {
  return node.query({ op: 'clientSessions', id, identityId: caller.identityId, isAdmin: caller.isAdmin, params: listParams(ctx), viewer: viewer(ctx) });
}
