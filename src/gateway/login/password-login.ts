// Password (updb) login: validates the body, finds the updb authenticator, and lets the
// identity's actor verify the password (worker pool, lockout) and create the session.

import type { Context } from 'koa';
import { checkItemCount } from '../../domain/validate.js';
import { ApiError, fieldError } from '../../errors.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';

export async function loginWithPassword(ctx: Context, node: NodeClient): Promise<string> {
  const body = jsonBody(ctx);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw fieldError('username', null, 'username is required');
  const { username, password } = body as Record<string, unknown>;
  checkLength('username', username, 4, 100);
  checkLength('password', password, 5, 100);
  const found = await node.query({ op: 'findUpdb', username });
  if (!found) throw new ApiError('INVALID_AUTH');
  const result = await node.identity('loginPassword', found.identityId, {
    authenticatorId: found.authenticatorId,
    password,
    ...sessionInfo(ctx, body as Record<string, unknown>),
  });
  return result.token;
}

/** What every login method passes along for the new API session. */
export function sessionInfo(ctx: Context, body: Record<string, unknown> | undefined): Record<string, unknown> {
  if (Array.isArray(body?.configTypes)) checkItemCount('configTypes', body.configTypes.length);
  return { envInfo: body?.envInfo, sdkInfo: body?.sdkInfo, configTypes: body?.configTypes, ipAddress: ctx.ip };
}

function checkLength(field: string, value: unknown, min: number, max: number): asserts value is string {
  if (value === undefined || value === null) throw fieldError(field, null, `${field} is required`);
  if (typeof value !== 'string') throw fieldError(field, value, `${field} in body must be of type string`);
  const length = [...value].length;
  const shown = field === 'password' ? '******' : value;
  if (length < min) throw fieldError(field, shown, `${field} should be at least ${min} chars long`);
  if (length > max) throw fieldError(field, shown, `${field} should be at most ${max} chars long`);
}
