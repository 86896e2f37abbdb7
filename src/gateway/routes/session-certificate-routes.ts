// Client API `/current-api-session/certificates`: the caller's session signs a CSR into a 12-hour
// client certificate, lists, reads and deletes its own. Another session's certificate is 404.

import type { Context } from 'koa';
import { resourceOf } from '../../domain/registry.js';
import { ApiError, invalidFilter } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { sendList } from '../list-answer.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { listParams } from './resource-routes.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

const KIND = 'api-session-certificates';
const BASE = '/current-api-session/certificates';

type Wire = Record<string, unknown>;

const decl = resourceOf(KIND);

/** The certificate, when it belongs to the caller's session (else 404). */
async function own(ctx: Context, node: NodeClient, id: string): Promise<Wire> {
  const caller = requireCaller(ctx);
  const filter = `id = "${quoted(id)}" and apiSessionId = "${quoted(caller.apiSessionId)}"`;
  const page = await node.query({ op: 'list', kind: KIND, params: { filter }, viewer: {} });
  const cert = (page.data as Wire[])[0];
  if (!cert) throw new ApiError('NOT_FOUND');
  return cert;
}

export const SESSION_CERTIFICATE_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: BASE, access: 'authenticated', operationId: 'listCurrentApiSessionCertificates',
    summary: 'List the ephemeral certificates available for the current API Session', query: ['filter', 'limit', 'offset'],
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      const params = listParams(ctx);
      const scope = `apiSessionId = "${quoted(caller.apiSessionId)}"`;
      const asked = typeof params.filter === 'string' && params.filter.trim() !== '' ? params.filter : undefined;
      // The caller's filter becomes one group ANDed with the scope: it must not close the group.
      if (asked !== undefined && !isBalanced(asked)) throw invalidFilter('unbalanced parentheses');
      const filter = asked === undefined ? scope : `${scope} and (${asked})`;
      await sendList(ctx, node, { op: 'list', kind: KIND, params: { ...params, filter }, viewer: {} }, present);
    },
  },
  {
    method: 'post', path: BASE, access: 'authenticated', operationId: 'createCurrentApiSessionCertificate',
    summary: 'Creates an ephemeral certificate for the current API Session', body: objectSchema({ csr: STRING }, ['csr']),
    ok: { status: 201, description: 'The certificate and the CA chain that signed it' },
    handler: async (ctx, { node }) => {
      const caller = requireCaller(ctx);
      const csr = (jsonBody(ctx) as { csr?: unknown } | undefined)?.csr;
      const created = await node.command<{ id: string; certificate: string; cas: string }>(decl, 'create', '', { body: { apiSessionId: caller.apiSessionId, csr } });
      sendData(ctx, { id: created.id, _links: links(created.id), certificate: created.certificate, cas: created.cas }, {}, 201);
    },
  },
  {
    method: 'get', path: `${BASE}/:id`, access: 'authenticated', operationId: 'detailCurrentApiSessionCertificate', summary: 'Retrieves an ephemeral certificate',
    handler: async (ctx, { node }) => sendData(ctx, present(await own(ctx, node, ctx.params.id))),
  },
  {
    method: 'delete', path: `${BASE}/:id`, access: 'authenticated', operationId: 'deleteCurrentApiSessionCertificate', summary: 'Delete an ephemeral certificate',
    handler: async (ctx, { node }) => {
      const cert = await own(ctx, node, ctx.params.id);
      await node.command(decl, 'delete', String(cert.id));
      sendEmpty(ctx);
    },
  },
];

/** The upstream detail: the stored fields, with links under the current API session. */
function present(wire: Wire): Wire {
  const { apiSessionId: _session, ...rest } = wire;
  return { ...rest, _links: links(String(wire.id)) };
}

function links(id: string): Record<string, { href: string }> {
  return { self: { href: `.${BASE}/${encodeURIComponent(id)}` } };
}

/** Parentheses outside string literals pair up, never closing more than were opened. */
function isBalanced(filter: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0 && !inString;
}

function quoted(text: string): string {
  return text.replace(/["\\]/g, '');
}
