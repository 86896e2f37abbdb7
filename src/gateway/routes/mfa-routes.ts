// TOTP MFA: the caller's own enrollment under /current-identity/mfa, `POST /authenticate/mfa` and
// TOTP tokens (both APIs), and the admin's `DELETE /identities/{id}/mfa` (management). Writes go to the
// identity's actor, reads to the query handler; codes arrive in a body `code` or the
// `mfa-validation-code` header.

import type { Context } from 'koa';
import { fieldError } from '../../errors.js';
import { sendData, sendEmpty } from '../envelope.js';
import { jsonBody } from '../middleware/body.js';
import { requireCaller } from '../middleware/session.js';
import type { NodeClient } from '../node-client.js';
import { qrCodePng } from '../qr/png.js';
import { objectSchema, STRING, type HandRoute } from './route-table.js';

const CODE_HEADER = 'mfa-validation-code';
const QR_CODE_PIXELS = 256;

/** Upstream's `mfaCode` body. */
const MFA_CODE = objectSchema({ code: STRING }, ['code']);

type OwnOp = 'mfaEnroll' | 'mfaVerify' | 'mfaAuthenticate' | 'mfaRegenerateCodes' | 'mfaDelete' | 'mfaTotpToken';

/** A command to the caller's identity actor, with the caller's API session. */
function own(ctx: Context, node: NodeClient, op: OwnOp, code?: string) {
  const caller = requireCaller(ctx);
  return node.identity(op, caller.identityId, { code, apiSessionId: caller.apiSessionId });
}

/** A POST of the caller's own MFA that requires a code in its body and answers empty. */
function codeCommand(path: string, operationId: string, summary: string, op: OwnOp): HandRoute {
  return {
    method: 'post', path, access: 'authenticated', operationId, summary, body: MFA_CODE,
    handler: async (ctx, { node }) => {
      await own(ctx, node, op, requiredCode(jsonBody(ctx)));
      sendEmpty(ctx);
    },
  };
}

export const MFA_ROUTES: readonly HandRoute[] = [
  {
    method: 'get', path: '/current-identity/mfa', access: 'authenticated', operationId: 'detailMfa',
    summary: 'Returns the current status of MFA enrollment',
    handler: async (ctx, { node }) => sendData(ctx, await node.query({ op: 'mfaDetail', identityId: requireCaller(ctx).identityId })),
  },
  {
    method: 'post', path: '/current-identity/mfa', access: 'authenticated', operationId: 'enrollMfa', summary: 'Initiate MFA enrollment',
    ok: { status: 201, description: 'The MFA enrollment has been started' },
    handler: async (ctx, { node }) => {
      const created = (await own(ctx, node, 'mfaEnroll')) as { id: string };
      sendData(ctx, { id: created.id, _links: { self: { href: './current-identity/mfa' } } }, {}, 201);
    },
  },
  {
    method: 'delete', path: '/current-identity/mfa', access: 'authenticated', operationId: 'deleteMfa',
    summary: 'Disable MFA for the current identity', body: objectSchema({ code: STRING }),
    handler: async (ctx, { node }) => {
      await own(ctx, node, 'mfaDelete', optionalCode(jsonBody(ctx)) ?? ctx.get(CODE_HEADER));
      sendEmpty(ctx);
    },
  },
  codeCommand('/current-identity/mfa/verify', 'verifyMfa', 'Complete MFA enrollment by verifying a time based one time token', 'mfaVerify'),
  {
    method: 'get', path: '/current-identity/mfa/qr-code', access: 'authenticated', operationId: 'detailMfaQrCode',
    summary: 'Show a QR code for unverified MFA enrollments',
    ok: { description: 'The provisioning URL as a QR code', produces: 'image/png', data: { type: 'file' } },
    handler: async (ctx, { node }) => {
      const { provisioningUrl } = await node.query({ op: 'mfaProvisioningUrl', identityId: requireCaller(ctx).identityId });
      ctx.status = 200;
      ctx.type = 'image/png';
      ctx.body = qrCodePng(provisioningUrl, QR_CODE_PIXELS);
    },
  },
  {
    // Upstream accepts the code in a GET body here.
    method: 'get', path: '/current-identity/mfa/recovery-codes', access: 'authenticated', getBody: true, operationId: 'detailMfaRecoveryCodes',
    summary: 'For a completed MFA enrollment view the current recovery codes', body: objectSchema({ code: STRING }),
    handler: async (ctx, { node }) => {
      const code = optionalCode(jsonBody(ctx)) ?? ctx.get(CODE_HEADER);
      sendData(ctx, await node.query({ op: 'mfaRecoveryCodes', identityId: requireCaller(ctx).identityId, code }));
    },
  },
  codeCommand('/current-identity/mfa/recovery-codes', 'createMfaRecoveryCodes', 'For a completed MFA enrollment regenerate the recovery codes', 'mfaRegenerateCodes'),
  {
    // A signed proof that the caller's session passed a TOTP check now (posture responses use it).
    method: 'post', path: '/current-api-session/totp-token', access: 'authenticated', operationId: 'createTotpToken',
    summary: 'Create an MFA TOTP token that proves TOTP code checking has passed as a specific time for posture checks.',
    body: objectSchema({ code: STRING }),
    handler: async (ctx, { node }) => sendData(ctx, await own(ctx, node, 'mfaTotpToken', optionalCode(jsonBody(ctx)) ?? '')),
  },
  {
    method: 'post', path: '/authenticate/mfa', access: 'authenticated', operationId: 'authenticateMfa', summary: 'Complete MFA authentication', body: MFA_CODE,
    handler: async (ctx, { node }) => {
      await own(ctx, node, 'mfaAuthenticate', requiredCode(jsonBody(ctx)));
      sendEmpty(ctx);
    },
  },
];

/** `DELETE /identities/{id}/mfa`: management API only. */
export const IDENTITY_MFA_ROUTES: readonly HandRoute[] = [
  {
    method: 'delete', path: '/identities/:id/mfa', access: 'admin', operationId: 'removeIdentityMfa', summary: 'Remove MFA from an identitity',
    handler: async (ctx, { node }) => {
      await node.identity('mfaRemove', ctx.params.id);
      sendEmpty(ctx);
    },
  },
];

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
