// What a client fetches to find and trust the network, without a session: the network JWT, the
// node CA as EST `cacerts` (PKCS#7), and (client API) the JWKS of the key that signs enrollment
// JWTs. Signed and encoded by the CA catalog actor, which holds the CA.

import { resourceOf } from '../../domain/registry.js';
import { sendData } from '../envelope.js';
import { STRING, type HandRoute } from './route-table.js';

const cas = resourceOf('cas');

export const NETWORK_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/network-jwts', access: 'none', operationId: 'listNetworkJWTs', summary: 'Returns a list of JWTs suitable for bootstrapping network trust.',
    handler: async (ctx, { node }) => {
      const { jwt } = await node.command<{ jwt: string }>(cas, 'networkJwt', '');
      sendData(ctx, [{ name: 'default', token: jwt }], { pagination: { limit: 1, offset: 0, totalCount: 1 } });
    },
  },
  {
    method: 'get', path: '/.well-known/est/cacerts', access: 'none', operationId: 'listWellKnownCas', summary: 'Get CA Cert Store',
    ok: { description: 'The CA certificates as base64 PKCS#7', produces: 'application/pkcs7-mime', data: STRING },
    handler: async (ctx, { node }) => {
      const { pkcs7 } = await node.command<{ pkcs7: string }>(cas, 'estCaCerts', '');
      ctx.status = 200;
      ctx.set('content-type', 'application/pkcs7-mime');
      ctx.set('content-transfer-encoding', 'base64');
      ctx.body = `${pkcs7}\n`;
    },
  },
];

/** The client API's `/enroll/jwks`. */
export const JWKS_ROUTE: HandRoute = {
  method: 'get', path: '/enroll/jwks', access: 'none', operationId: 'getEnrollmentJwks', summary: 'List JSON Web Keys associated with enrollment',
  ok: { description: 'A JSON Web Key set (not in an envelope)', produces: 'application/json', data: { type: 'object', properties: { keys: { type: 'array', items: { type: 'object' } } } } },
  handler: async (ctx, { node }) => {
    ctx.status = 200;
    ctx.body = await node.command(cas, 'jwks', '');
  },
};
