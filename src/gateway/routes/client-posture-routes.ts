// Client-API routes of endpoints: the caller's services with their posture queries, posture
// responses (single and bulk), and the caller's service sessions. Posture state lives in the
// caller's identity actor; reads go to this node's query handler with the actor's snapshot.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller, type Caller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { sendList } from '../list-answer.js';
import { listParams, viewer } from './resource-routes.js';

export function addClientPostureRoutes(router: Router, node: NodeClient): void {
  const snapshot = (caller: Caller) => node.identity('postureSnapshot', caller.identityId, { apiSessionId: caller.apiSessionId });
  const services = async (ctx: Context, id?: string) => {
    const caller = requireCaller(ctx);
    return {
      op: 'clientServices' as const,
      id,
      identityId: caller.identityId,
      apiSessionId: caller.apiSessionId,
      posture: await snapshot(caller),
      params: listParams(ctx),
      viewer: viewer(ctx),
    };
  };
  router.get('/services', async (ctx) => {
    await sendList(ctx, node, await services(ctx));
  });
  router.get('/services/:id', async (ctx) => {
    sendData(ctx, await node.query(await services(ctx, ctx.params.id)));
  });

  const submit = async (ctx: Context, single: boolean) => {
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
  router.post('/posture-response', async (ctx) => submit(ctx, true));
  router.post('/posture-response-bulk', async (ctx) => submit(ctx, false));

  router.post('/sessions', async (ctx) => {
    const caller = requireCaller(ctx);
    const created = await node.identity('createSession', caller.identityId, {
      apiSessionId: caller.apiSessionId,
      body: jsonBody(ctx) ?? {},
    });
    sendData(ctx, await sessions(ctx, node, caller, created.id), {}, 201);
  });
  router.get('/sessions', async (ctx) => {
    const caller = requireCaller(ctx);
    await sendList(ctx, node, { op: 'clientSessions', identityId: caller.identityId, isAdmin: caller.isAdmin, params: listParams(ctx), viewer: viewer(ctx) });
  });
  router.get('/sessions/:id', async (ctx) => {
    sendData(ctx, await sessions(ctx, node, requireCaller(ctx), ctx.params.id));
  });
  router.delete('/sessions/:id', async (ctx) => {
    const caller = requireCaller(ctx);
    await node.identity('deleteSession', caller.identityId, { sessionId: ctx.params.id, isAdmin: caller.isAdmin });
    sendEmpty(ctx);
  });
}

/** The caller's sessions (all sessions for an admin, as upstream), or one of them. */
function sessions(ctx: Context, node: NodeClient, caller: Caller, id?: string): Promise<unknown> {
  return node.query({ op: 'clientSessions', id, identityId: caller.identityId, isAdmin: caller.isAdmin, params: listParams(ctx), viewer: viewer(ctx) });
}
