// What a client fetches to find and trust the network, without a session: the network JWT, the
// node CA as EST `cacerts` (PKCS#7), and (client API) the JWKS of the key that signs enrollment
// JWTs. Signed and encoded by the CA catalog actor, which holds the CA.

import type Router from '@koa/router';
import { resourceOf } from '../../domain/registry.js';
import { sendData } from '../envelope.js';
import type { NodeClient } from '../node-client.js';

export function addNetworkRoutes(router: Router, node: NodeClient, opts: { jwks: boolean }): void {
  const cas = resourceOf('cas');
  router.get('/network-jwts', async (ctx) => {
    const { jwt } = await node.command<{ jwt: string }>(cas, 'networkJwt', '');
    sendData(ctx, [{ name: 'default', token: jwt }], { pagination: { limit: 1, offset: 0, totalCount: 1 } });
  });
  router.get('/.well-known/est/cacerts', async (ctx) => {
    const { pkcs7 } = await node.command<{ pkcs7: string }>(cas, 'estCaCerts', '');
    ctx.status = 200;
    ctx.set('content-type', 'application/pkcs7-mime');
    ctx.set('content-transfer-encoding', 'base64');
    ctx.body = `${pkcs7}\n`;
  });
  if (opts.jwks) {
    router.get('/enroll/jwks', async (ctx) => {
      ctx.status = 200;
      ctx.body = await node.command(cas, 'jwks', '');
    });
  }
}
