// The client API's enrollment endpoints (`/enroll?method=...` and `/enroll/<method>`): the token
// names the identity or router whose actor redeems it; CA auto-enrollment creates an identity.
// No session is needed: the token (or the client certificate) is the credential.

import type { Context } from 'koa';
import { newId } from '../../domain/ids.js';
import { resourceOf } from '../../domain/registry.js';
import { ApiError } from '../../errors.js';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { peerCertificates } from '../peer-certificates.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

/** The request's parts an enrollment may use: a PEM body, JSON fields, the query token. */
interface EnrollInput {
  method: string;
  token: string;
  pem?: string;
  json: Record<string, unknown>;
}

/** The JSON body of the token methods (a PEM CSR may be sent as the body instead). */
const ENROLL_BODY = objectSchema({ token: STRING, clientCsr: STRING, password: STRING, certCsr: STRING, serverCertCsr: STRING, serverCsr: STRING, name: STRING });
const PEM_OR_JSON = ['application/json', 'application/x-pem-file', 'text/plain'] as const;

export const ENROLL_ROUTES: readonly HandRoute[] = [
  {
    method: 'post', path: '/enroll', access: 'none', operationId: 'enroll', summary: 'Enroll an identity via one-time-token',
    query: ['method', 'token'], body: ENROLL_BODY, consumes: PEM_OR_JSON, ok: { description: 'The signed certificates, or the enrolled identity' },
    handler: async (ctx, { node }) => {
      const input = inputOf(ctx, String(ctx.query.method ?? '') || 'ott');
      if (input.method === 'ca') return sendData(ctx, await enrollCa(ctx, node, input));
      const routerMethod = input.method === 'erott' || input.method === 'trott';
      // Routers send `certCsr` + `serverCertCsr` here; identities `clientCsr` or a PEM body.
      const csrs = routerMethod
        ? { clientCsr: input.json.certCsr ?? input.pem, serverCsr: input.json.serverCertCsr }
        : { clientCsr: input.json.clientCsr ?? input.pem };
      await redeem(ctx, node, input, csrs);
    },
  },
  {
    method: 'post', path: '/enroll/ott', access: 'none', operationId: 'enrollOtt', summary: 'Enroll an identity via one-time-token',
    query: ['token'], body: objectSchema({ token: STRING, clientCsr: STRING }), consumes: PEM_OR_JSON,
    handler: async (ctx, { node }) => {
      const input = inputOf(ctx, 'ott');
      await redeem(ctx, node, input, { clientCsr: input.json.clientCsr ?? input.pem });
    },
  },
  {
    method: 'post', path: '/enroll/ottca', access: 'none', operationId: 'enrollOttCa',
    summary: 'Enroll an identity via one-time-token with a pre-exchanged client certificate', query: ['token'], body: objectSchema({ token: STRING }),
    handler: (ctx, { node }) => redeem(ctx, node, inputOf(ctx, 'ottca'), {}),
  },
  {
    method: 'post', path: '/enroll/updb', access: 'none', operationId: 'enrollUpdb', summary: 'Enroll an identity via one-time-token',
    query: ['token'], body: objectSchema({ token: STRING, password: STRING }),
    handler: (ctx, { node }) => redeem(ctx, node, inputOf(ctx, 'updb'), {}),
  },
  {
    method: 'post', path: '/enroll/erott', access: 'none', operationId: 'enrollErOtt', summary: 'Enroll an edge-router',
    query: ['token'], body: objectSchema({ token: STRING, clientCsr: STRING, serverCsr: STRING, serverCertCsr: STRING }),
    handler: async (ctx, { node }) => {
      const input = inputOf(ctx, 'erott');
      await redeem(ctx, node, input, { clientCsr: input.json.clientCsr, serverCsr: input.json.serverCsr ?? input.json.serverCertCsr });
    },
  },
  {
    method: 'post', path: '/enroll/ca', access: 'none', operationId: 'enrollCa', summary: 'Enroll an identity with a pre-exchanged certificate',
    body: objectSchema({ name: STRING }),
    handler: async (ctx, { node }) => sendData(ctx, await enrollCa(ctx, node, inputOf(ctx, 'ca'))),
  },
  {
    method: 'post', path: '/enroll/extend/router', access: 'none', operationId: 'extendRouterEnrollment',
    summary: "Extend the life of a currently enrolled router's certificates", body: objectSchema({ certCsr: STRING, serverCertCsr: STRING }, ['serverCertCsr', 'certCsr']),
    handler: async (ctx, { node }) => {
      const peer = peerCertificates(ctx);
      if (!peer) throw new ApiError('UNAUTHORIZED');
      const found = await node.query({ op: 'findRouterByFingerprint', fingerprint: peer.fingerprint });
      if (!found) throw new ApiError('UNAUTHORIZED');
      const json = objectBody(ctx);
      sendData(ctx, await node.command(resourceOf(found.kind), 'extendEnrollment', found.id, {
        peerCerts: peer.pems, clientCsr: json.certCsr, serverCsr: json.serverCertCsr,
      }));
    },
  },
];

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
