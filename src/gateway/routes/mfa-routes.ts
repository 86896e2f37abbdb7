// TOTP MFA: the caller's own enrollment under /current-identity/mfa, `POST /authenticate/mfa` and
// TOTP tokens (both APIs), and the admin's `DELETE /identities/{id}/mfa` (management). Writes go to the
// identity's actor, reads to the query handler; codes arrive in a body `code` or the
// `mfa-validation-code` header.

import type { Context } from 'koa';
import type Router from '@koa/router';
import { fieldError } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody, routeBodyMiddleware } from '../middleware/body.js';
import { requireAdmin, requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { qrCodePng } from '../qr/png.js';

const CODE_HEADER = 'mfa-validation-code';
const QR_CODE_PIXELS = 256;

export function addMfaRoutes(router: Router, node: NodeClient): void {
  /** A command to the caller's identity actor, with the caller's API session. */
  const own = (ctx: Context, op: 'mfaEnroll' | 'mfaVerify' | 'mfaAuthenticate' | 'mfaRegenerateCodes' | 'mfaDelete' | 'mfaTotpToken', code?: string) => {
    const caller = requireCaller(ctx);
    return node.identity(op, caller.identityId, { code, apiSessionId: caller.apiSessionId });
  };

  router.get('/current-identity/mfa', async (ctx) => {
    sendData(ctx, await node.query({ op: 'mfaDetail', identityId: requireCaller(ctx).identityId }));
  });
  router.post('/current-identity/mfa', async (ctx) => {
    const created = (await own(ctx, 'mfaEnroll')) as { id: string };
    sendData(ctx, { id: created.id, _links: { self: { href: './current-identity/mfa' } } }, {}, 201);
  });
  router.delete('/current-identity/mfa', async (ctx) => {
    requireCaller(ctx);
    await own(ctx, 'mfaDelete', optionalCode(jsonBody(ctx)) ?? ctx.get(CODE_HEADER));
    sendEmpty(ctx);
  });
  router.post('/current-identity/mfa/verify', async (ctx) => {
    requireCaller(ctx);
    await own(ctx, 'mfaVerify', requiredCode(jsonBody(ctx)));
    sendEmpty(ctx);
  });
  router.get('/current-identity/mfa/qr-code', async (ctx) => {
    const caller = requireCaller(ctx);
    const { provisioningUrl } = await node.query({ op: 'mfaProvisioningUrl', identityId: caller.identityId });
    ctx.status = 200;
    ctx.type = 'image/png';
    ctx.body = qrCodePng(provisioningUrl, QR_CODE_PIXELS);
  });
  // Upstream accepts the code in a GET body here.
  router.get('/current-identity/mfa/recovery-codes', routeBodyMiddleware, async (ctx) => {
    const caller = requireCaller(ctx);
    const code = optionalCode(jsonBody(ctx)) ?? ctx.get(CODE_HEADER);
    sendData(ctx, await node.query({ op: 'mfaRecoveryCodes', identityId: caller.identityId, code }));
  });
  router.post('/current-identity/mfa/recovery-codes', async (ctx) => {
    requireCaller(ctx);
    await own(ctx, 'mfaRegenerateCodes', requiredCode(jsonBody(ctx)));
    sendEmpty(ctx);
  });
  // A signed proof that the caller's session passed a TOTP check now (posture responses use it).
  router.post('/current-api-session/totp-token', async (ctx) => {
    requireCaller(ctx);
    sendData(ctx, await own(ctx, 'mfaTotpToken', optionalCode(jsonBody(ctx)) ?? ''));
  });
  router.post('/authenticate/mfa', async (ctx) => {
    requireCaller(ctx);
    await own(ctx, 'mfaAuthenticate', requiredCode(jsonBody(ctx)));
    sendEmpty(ctx);
  });
}

/** `DELETE /identities/{id}/mfa`: management API only. */
export function addIdentityMfaRoutes(router: Router, node: NodeClient): void {
  router.delete('/identities/:id/mfa', async (ctx) => {
    requireAdmin(ctx);
    await node.identity('mfaRemove', ctx.params.id);
    sendEmpty(ctx);
  });
}

/** The body's `code` (the upstream `mfaCode` document requires it): 400 when missing. */
function requiredCode(body: unknown): string {
  const code = optionalCode(body);
  if (code === undefined) throw fieldError('code', null, 'code in body is required');
  return code;
}

function optionalCode(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw fieldError('code', null, 'code in body is required');
  const code = (body as { code?: unknown }).code;
  if (code === undefined || code === null) return undefined;
  if (typeof code !== 'string') throw fieldError('code', code, 'code in body must be of type string');
  return code;
}
