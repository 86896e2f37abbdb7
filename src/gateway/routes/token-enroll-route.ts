// `POST /enroll/token` (client API): a bearer JWT of an external JWT signer enrolls a new identity
// (see actors/credentials/token-enroll). The token is verified here; a token that does not
// verify, or names another signer than `ziti-token-issuer-id`, is 400 INVALID_ENROLLMENT_TOKEN.

import type Router from '@koa/router';
import { newId } from '../../domain/ids.js';
import { ApiError } from '../../errors.js';
import { verifyBearer, type VerifiedBearer } from '../login/ext-jwt-bearer.js';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';

export function addTokenEnrollRoute(router: Router, node: NodeClient): void {
  router.post('/enroll/token', async (ctx) => {
    let verified: VerifiedBearer;
    try {
      verified = await verifyBearer(ctx, node);
    } catch (err) {
      if (err instanceof ApiError) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
      throw err;
    }
    const wanted = ctx.get('ziti-token-issuer-id');
    if (wanted !== '' && wanted !== verified.signer.id) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
    const body = jsonBody(ctx) as { clientCsr?: unknown } | undefined;
    const csr = typeof body?.clientCsr === 'string' ? body.clientCsr : undefined;
    const result = await node.identity('enrollToken', newId(), {
      body: { signerId: verified.signer.id, claims: verified.claims, csr },
    });
    sendData(ctx, result);
  });
}
