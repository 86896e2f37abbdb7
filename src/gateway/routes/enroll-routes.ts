// The client API's enrollment endpoints (`/enroll?method=...` and `/enroll/<method>`): the token
// names the identity or router whose actor redeems it; CA auto-enrollment creates an identity.
// No session is needed: the token (or the client certificate) is the credential.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { newId } from '../../domain/ids.js';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { peerCertificates } from '../peer-certificates.js';

/** The request's parts an enrollment may use: a PEM body, JSON fields, the query token. */
interface EnrollInput {
  method: string;
  token: string;
  pem?: string;
  json: Record<string, unknown>;
}

export function addEnrollRoutes(router: Router, node: NodeClient): void {
  router.post('/enroll', async (ctx) => {
    const input = inputOf(ctx, String(ctx.query.method ?? '') || 'ott');
    if (input.method === 'ca') return sendData(ctx, await enrollCa(ctx, node, input));
    const routerMethod = input.method === 'erott' || input.method === 'trott';
    // Routers send `certCsr` + `serverCertCsr` here; identities `clientCsr` or a PEM body.
    const csrs = routerMethod
      ? { clientCsr: input.json.certCsr ?? input.pem, serverCsr: input.json.serverCertCsr }
      : { clientCsr: input.json.clientCsr ?? input.pem };
    await redeem(ctx, node, input, csrs);
  });
  router.post('/enroll/ott', async (ctx) => {
    const input = inputOf(ctx, 'ott');
    await redeem(ctx, node, input, { clientCsr: input.json.clientCsr ?? input.pem });
  });
  router.post('/enroll/ottca', async (ctx) => redeem(ctx, node, inputOf(ctx, 'ottca'), {}));
  router.post('/enroll/updb', async (ctx) => redeem(ctx, node, inputOf(ctx, 'updb'), {}));
  router.post('/enroll/erott', async (ctx) => {
    const input = inputOf(ctx, 'erott');
    await redeem(ctx, node, input, { clientCsr: input.json.clientCsr, serverCsr: input.json.serverCsr ?? input.json.serverCertCsr });
  });
  router.post('/enroll/ca', async (ctx) => sendData(ctx, await enrollCa(ctx, node, inputOf(ctx, 'ca'))));
  router.post('/enroll/extend/router', async (ctx) => {
    const peer = peerCertificates(ctx);
    if (!peer) throw new ApiError('UNAUTHORIZED');
    const found = await node.query({ op: 'findRouterByFingerprint', fingerprint: peer.fingerprint });
    if (!found) throw new ApiError('UNAUTHORIZED');
    const json = objectBody(ctx);
    sendData(ctx, await node.command(resourceOf(found.kind), 'extendEnrollment', found.id, {
      peerCerts: peer.pems, clientCsr: json.certCsr, serverCsr: json.serverCertCsr,
    }));
  });
}

function inputOf(ctx: Context, method: string): EnrollInput {
  const raw = (ctx.request as unknown as { body?: unknown }).body;
  const pem = typeof raw === 'string' && !ctx.is('json') ? raw : undefined;
  const json = pem === undefined ? objectBody(ctx) : {};
  const token = String(json.token ?? ctx.query.token ?? '');
  return { method, token, pem, json };
}

function objectBody(ctx: Context): Record<string, unknown> {
  const body = jsonBody(ctx);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** Finds the token's holder and lets its actor redeem it; answers as upstream does per method. */
async function redeem(ctx: Context, node: NodeClient, input: EnrollInput, csrs: { clientCsr?: unknown; serverCsr?: unknown }): Promise<void> {
  const holder = input.token ? await node.query({ op: 'findEnrollment', token: input.token }) : null;
  if (!holder) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (holder.method !== input.method) throw new ApiError('INVALID_ENROLL_METHOD');
  const peer = peerCertificates(ctx);
  if (holder.kind !== 'identities') {
    sendData(ctx, await node.command(resourceOf(holder.kind), 'enroll', holder.id, { token: input.token, method: input.method, ...csrs }));
    return;
  }
  const reply = await node.identity('enroll', holder.id, {
    token: input.token,
    method: input.method,
    csrPem: csrs.clientCsr,
    password: input.json.password,
    peerCerts: peer?.pems ?? [],
  });
  if (reply.cert !== undefined && acceptsOnlyPem(ctx)) {
    ctx.status = 200;
    ctx.type = 'application/x-pem-file';
    ctx.body = reply.cert;
    return;
  }
  sendData(ctx, reply);
}

/** CA auto-enrollment: the new identity's id is decided here, its actor does the rest. */
async function enrollCa(ctx: Context, node: NodeClient, input: EnrollInput): Promise<unknown> {
  const peer = peerCertificates(ctx);
  return node.identity('enrollCa', newId(), { peerCerts: peer?.pems ?? [], name: input.json.name });
}

/** Legacy clients that ask for the bare certificate chain get PEM instead of the envelope. */
function acceptsOnlyPem(ctx: Context): boolean {
  const accept = ctx.get('accept');
  return accept.includes('application/x-pem-file') && !accept.includes('json') && !accept.includes('*/*');
}
