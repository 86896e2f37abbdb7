// Creating an API session after a successful login, whatever the method: a random token
// (stored only as its SHA-256), the session record, and the client's env/sdk info on the
// identity, in one command. Hooks let features add fields (e.g. MFA required).

import { randomUUID } from 'node:crypto';
import type { Entity, Op } from '../domain/commands.js';
import { newId } from '../domain/ids.js';
import { hashToken } from '../domain/session-token.js';
import type { Replica } from '../store/replica.js';
import { mfaSessionFields } from './mfa/mfa-session-fields.js';
import type { Proposer } from './proposer.js';

/** What a successful login returns to the gateway: the token is shown once, never stored. */
export interface LoginResult {
  token: string;
  apiSessionId: string;
}

/** The client's details that travel with a login request. */
export interface SessionRequest {
  ipAddress?: unknown;
  configTypes?: unknown;
  envInfo?: unknown;
  sdkInfo?: unknown;
}

/** Adds fields to a new API session (e.g. `isMfaRequired`), decided from the identity. */
export type SessionFieldsHook = (identity: Entity, replica: Replica) => Promise<Record<string, unknown>>;

/** Every feature that adds fields to a new API session, named here rather than registered as
 * a side effect of an import: a login must never skip one because a module was not loaded. */
const SESSION_FIELDS: readonly SessionFieldsHook[] = [mfaSessionFields];

export async function createApiSession(
  deps: { replica: Replica; proposer: Proposer },
  identity: Entity,
  authenticatorId: string,
  request: SessionRequest,
  extraOps: Op[] = [],
): Promise<LoginResult> {
  const token = randomUUID();
  const at = new Date().toISOString();
  const apiSessionId = newId();
  const session: Entity = {
    id: apiSessionId,
    createdAt: at,
    updatedAt: at,
    tags: {},
    identityId: identity.id,
    tokenHash: hashToken(token),
    authenticatorId,
    ipAddress: String(request.ipAddress ?? ''),
    configTypes: Array.isArray(request.configTypes) ? request.configTypes : [],
    isMfaRequired: false,
    isMfaComplete: false,
    lastActivityAt: at,
  };
  for (const hook of SESSION_FIELDS) Object.assign(session, await hook(identity, deps.replica));
  const ops: Op[] = [{ op: 'create', kind: 'api-sessions', record: session }, ...extraOps];
  const info: Record<string, unknown> = {};
  if (request.envInfo && typeof request.envInfo === 'object') info.envInfo = request.envInfo;
  if (request.sdkInfo && typeof request.sdkInfo === 'object') info.sdkInfo = request.sdkInfo;
  if (Object.keys(info).length > 0) ops.push({ op: 'set', kind: 'identities', id: identity.id, fields: info });
  await deps.proposer.propose(ops, at);
  return { token, apiSessionId };
}
