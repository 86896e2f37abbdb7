// Session resolution: reads the `zt-session` header, asks the query handler who the caller is
// (or recalls its answer of a moment ago), checks a required secondary ext-jwt token, and sets
// the expiry headers. Access checks (authenticated / admin) are helpers routes call.

import type { Context, Next } from 'koa';
import { hasSecondaryOutstanding } from '../../domain/secondary-auth.js';
import { ApiError } from '../../errors.js';
import type { SessionInfo } from '../../protocol/v1/query-messages.js';
import { passesSecondaryExtJwt } from '../login/secondary-ext-jwt.js';
import type { NodeClient } from '../node-client.js';
import type { CallerCache, Recalled } from './caller-cache.js';
import { isAllowedWhilePartial } from './partial-session.js';

/** The caller, as the query handler resolved the session token (see SessionInfo). */
export interface Caller extends SessionInfo {
  token: string;
  /** This request carried a valid token of the required ext-jwt signer for the caller's identity. */
  extJwtPassed?: boolean;
}

/** `callers` (optional) remembers resolved sessions for a moment (see CallerCache). */
export function sessionMiddleware(node: NodeClient, callers?: CallerCache) {
  const ask = async (token: string): Promise<Recalled> => {
    const version = callers?.currentVersion();
    const session = await node.query({ op: 'resolveSession', token });
    if (callers && version !== undefined) callers.remember(token, session, version);
    return { session, expiresAt: session.expiresAt };
  };
  /** Sets the caller (unless the session owes a secondary factor outside the allow-list) and the
   * expiry headers. */
  const admit = (ctx: Context, token: string, { session, expiresAt }: Recalled, extJwtPassed: boolean): void => {
    const caller = callerOf(session, token, expiresAt, extJwtPassed);
    // A partially authenticated session (TOTP or ext-jwt token owed) counts as no session
    // outside the allow-list.
    if (!hasSecondaryOutstanding(caller) || isAllowedWhilePartial(ctx.method, ctx.path)) ctx.state.caller = caller;
    ctx.set('expiration-seconds', String(caller.expirationSeconds));
    ctx.set('expires-at', caller.expiresAt);
  };
  const resolveAndAdmit = async (ctx: Context, next: Next, token: string, recalled: Recalled | undefined): Promise<void> => {
    try {
      const resolved = recalled ?? (await ask(token));
      // Most callers owe no ext-jwt token: no need to look at the request for one.
      const required = typeof resolved.session.requiredExtJwtSigner === 'string';
      admit(ctx, token, resolved, required ? await passesSecondaryExtJwt(ctx, node, resolved.session) : false);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'UNAUTHORIZED') throw err;
    }
    await next();
  };
  return function resolveSession(ctx: Context, next: Next): Promise<void> {
    const token = ctx.get('zt-session').trim();
    if (!token) return next();
    const recalled = callers?.recall(token);
    // The common case, a session recalled that owes no ext-jwt token, takes no async step.
    if (recalled && typeof recalled.session.requiredExtJwtSigner !== 'string') {
      admit(ctx, token, recalled, false);
      return next();
    }
    return resolveAndAdmit(ctx, next, token, recalled);
  };
}

/** The caller, field by field (one object shape for every request). */
function callerOf(session: SessionInfo, token: string, expiresAt: string, extJwtPassed: boolean): Caller {
  return {
    apiSessionId: session.apiSessionId,
    identityId: session.identityId,
    identityName: session.identityName,
    isAdmin: session.isAdmin,
    expiresAt,
    expirationSeconds: session.expirationSeconds,
    token,
    isMfaRequired: session.isMfaRequired,
    isMfaComplete: session.isMfaComplete,
    requiredExtJwtSigner: session.requiredExtJwtSigner,
    extJwtPassed,
  };
}

/** The authenticated caller, or 401 UNAUTHORIZED. */
export function requireCaller(ctx: Context): Caller {
  const caller = ctx.state.caller as Caller | undefined;
  if (!caller) throw new ApiError('UNAUTHORIZED');
  return caller;
}

/** An admin caller (isAdmin or the default admin), or 401 as upstream answers. */
export function requireAdmin(ctx: Context): Caller {
  const caller = requireCaller(ctx);
  if (!caller.isAdmin) throw new ApiError('UNAUTHORIZED');
  return caller;
}

export function requireAccess(ctx: Context, access: 'admin' | 'authenticated' | 'none'): void {
  if (access === 'admin') requireAdmin(ctx);
  else if (access === 'authenticated') requireCaller(ctx);
}
