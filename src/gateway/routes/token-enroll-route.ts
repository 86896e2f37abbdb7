// `POST /enroll/token` (client API): a bearer JWT of an external JWT signer enrolls a new identity
// (see actors/credentials/token-enroll). The token is verified here; a token that does not
// verify, or names another signer than `ziti-token-issuer-id`, is 400 INVALID_ENROLLMENT_TOKEN.

import { newId } from '../../domain/ids.js';
import { ApiError } from '../../errors.js';
import { verifyBearer, type VerifiedBearer } from '../login/ext-jwt-bearer.js';
import { sendData } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

export const TOKEN_ENROLL_ROUTE: HandRoute = {
  method: 'post', path: '/enroll/token', access: 'none', operationId: 'enrollToken',
  summary: 'Enroll a new identity with the bearer JWT of an external JWT signer', body: objectSchema({ clientCsr: STRING }),
  handler: async (ctx, { node }) => {
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
  },
};
