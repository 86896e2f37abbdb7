// Session resolution: reads the `zt-session` header, asks the query handler who the caller is,
// and sets the expiry headers. Access checks (authenticated / admin) are helpers routes call.

import type { Context, Next } from 'koa';
import { isMfaPending } from '../../domain/mfa-session.js';
import { ApiError } from '../../errors.js';
import type { NodeClient } from '../node-client.js';
import { isAllowedWhilePartial } from './partial-session.js';

/** The caller, as the query handler resolved the session token. */
export interface Caller {
  apiSessionId: string;
  identityId: string;
  identityName: string;
  isAdmin: boolean;
  expiresAt: string;
  expirationSeconds: number;
  token: string;
  /** MFA state of the session: while required and not complete, it is partially authenticated. */
  isMfaRequired?: boolean;
  isMfaComplete?: boolean;
}

export function sessionMiddleware(node: NodeClient) {
  return async function resolveSession(ctx: Context, next: Next): Promise<void> {
    const token = ctx.get('zt-session').trim();
    if (token) {
      try {
        const caller = await node.query<Omit<Caller, 'token'>>({ op: 'resolveSession', token });
        // A partially authenticated session (TOTP owed) counts as no session outside the allow-list.
        if (!isMfaPending(caller) || isAllowedWhilePartial(ctx.method, ctx.path)) ctx.state.caller = { ...caller, token } satisfies Caller;
        ctx.set('expiration-seconds', String(caller.expirationSeconds));
        ctx.set('expires-at', caller.expiresAt);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'UNAUTHORIZED') throw err;
      }
    }
    await next();
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
