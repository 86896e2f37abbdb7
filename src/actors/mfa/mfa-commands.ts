// MFA writes of one identity, run inside its identity actor (so recovery codes are consumed one
// request at a time): enroll, verify, authenticate, regenerate codes, delete. Secrets, codes and
// times are decided here, before the ops are proposed.

import { randomBytes } from 'node:crypto';
import { recordFingerprint, type Entity, type Op } from '../../domain/commands.js';
import { newId } from '../../domain/ids.js';
import {
  RECOVERY_CODE_BYTES,
  RECOVERY_CODE_COUNT,
  SECRET_BYTES,
  recoveryCodeFromBytes,
  secretFromBytes,
  verifyTotp,
} from '../../domain/totp.js';
import { unknownOperation } from '../../protocol/v1/message-fields.js';
import { ApiError } from '../../errors.js';
import type { Replica } from '../../store/replica.js';
import type { ActorMessage } from '../actor-host.js';
import type { Proposer } from '../proposer.js';
import { mfaNow } from '../../domain/mfa-clock.js';

/** What the MFA commands need from the identity actor. */
export interface MfaCommandContext {
  identityId: string;
  replica: Replica;
  proposer: Proposer;
}

/** Runs one MFA operation for the actor's identity. `code` and `apiSessionId` come with the message. */
export async function handleMfaCommand(ctx: MfaCommandContext, msg: ActorMessage): Promise<unknown> {
  const code = typeof msg.code === 'string' ? msg.code : '';
  const apiSessionId = typeof msg.apiSessionId === 'string' ? msg.apiSessionId : undefined;
  switch (msg.op) {
    case 'mfaEnroll':
      return enroll(ctx);
    case 'mfaVerify':
      return verifyEnrollment(ctx, code, apiSessionId);
    case 'mfaAuthenticate':
      return authenticate(ctx, code, apiSessionId);
    case 'mfaRegenerateCodes':
      return regenerateCodes(ctx, code);
    case 'mfaDelete':
      return deleteOwn(ctx, code);
    case 'mfaRemove':
      return removeByAdmin(ctx);
    default:
      throw unknownOperation('mfa', msg.op);
  }
}

/** The identity's MFA record, if any. */
export function mfaOf(replica: Replica, identityId: string): Promise<Entity | undefined> {
  return replica.findUnique('mfas', 'identityId', identityId);
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeFromBytes(randomBytes(RECOVERY_CODE_BYTES)));
}

async function enroll(ctx: MfaCommandContext): Promise<{ id: string }> {
  if (!(await ctx.replica.get('identities', ctx.identityId))) throw new ApiError('NOT_FOUND');
  if (await mfaOf(ctx.replica, ctx.identityId)) throw new ApiError('MFA_EXISTS');
  const at = new Date().toISOString();
  const record: Entity = {
    id: newId(),
    createdAt: at,
    updatedAt: at,
    tags: {},
    identityId: ctx.identityId,
    isVerified: false,
    secret: secretFromBytes(randomBytes(SECRET_BYTES)),
    recoveryCodes: newRecoveryCodes(),
  };
  try {
    await ctx.proposer.propose([{ op: 'create', kind: 'mfas', record }], at);
  } catch (err) {
    // Another node enrolled the same identity first: the unique identityId refused this one.
    const cause = err instanceof ApiError ? (err.apiCause as { field?: unknown } | undefined) : undefined;
    if (cause?.field === 'identityId') throw new ApiError('MFA_EXISTS');
    throw err;
  }
  return { id: record.id };
}

/** Completes an enrollment with a TOTP code (never a recovery code); the session passes MFA. */
async function verifyEnrollment(ctx: MfaCommandContext, code: string, apiSessionId: string | undefined): Promise<Record<string, never>> {
  const mfa = await mfaOf(ctx.replica, ctx.identityId);
  if (!mfa || mfa.isVerified === true) throw new ApiError('NOT_FOUND');
  if (!verifyTotp(String(mfa.secret), code, mfaNow())) throw new ApiError('MFA_INVALID_TOKEN');
  const at = new Date().toISOString();
  const ops: Op[] = [{ op: 'set', kind: 'mfas', id: mfa.id, fields: { isVerified: true, updatedAt: at } }];
  if (apiSessionId) ops.push(sessionPassed(apiSessionId, at, { isMfaRequired: true }));
  await ctx.proposer.propose(ops, at);
  return {};
}

/** `POST /authenticate/mfa`: a TOTP or recovery code completes the caller's session. */
async function authenticate(ctx: MfaCommandContext, code: string, apiSessionId: string | undefined): Promise<Record<string, never>> {
  const mfa = await mfaOf(ctx.replica, ctx.identityId);
  if (!mfa) throw new ApiError('MFA_NOT_ENROLLED');
  const at = new Date().toISOString();
  const ops = checkCode(mfa, code, at);
  if (apiSessionId) ops.push(sessionPassed(apiSessionId, at));
  await ctx.proposer.propose(ops, at);
  return {};
}

/** Replaces all recovery codes of a verified MFA; a TOTP or recovery code proves the caller. */
async function regenerateCodes(ctx: MfaCommandContext, code: string): Promise<Record<string, never>> {
  const mfa = await mfaOf(ctx.replica, ctx.identityId);
  if (!mfa || mfa.isVerified !== true) throw new ApiError('NOT_FOUND');
  const at = new Date().toISOString();
  checkCode(mfa, code, at);
  // Expects the record the code was checked against: a recovery code proves the caller once.
  const fields = { recoveryCodes: newRecoveryCodes(), updatedAt: at };
  await ctx.proposer.propose([{ op: 'set', kind: 'mfas', id: mfa.id, fields, expect: recordFingerprint(mfa) }], at);
  return {};
}

/** The identity removes its own MFA: any code for an unverified one, a valid one otherwise. */
async function deleteOwn(ctx: MfaCommandContext, code: string): Promise<Record<string, never>> {
  const mfa = await mfaOf(ctx.replica, ctx.identityId);
  if (!mfa) throw new ApiError('NOT_FOUND');
  const at = new Date().toISOString();
  if (mfa.isVerified === true) checkCode(mfa, code, at);
  await ctx.proposer.propose([{ op: 'delete', kind: 'mfas', id: mfa.id, expect: recordFingerprint(mfa) }, ...(await clearPassedMfa(ctx))], at);
  return {};
}

/** `DELETE /identities/{id}/mfa`: an admin removes whatever MFA the identity has (none is fine). */
async function removeByAdmin(ctx: MfaCommandContext): Promise<Record<string, never>> {
  if (!(await ctx.replica.get('identities', ctx.identityId))) throw new ApiError('NOT_FOUND');
  const at = new Date().toISOString();
  await ctx.proposer.propose(
    [{ op: 'deleteWhere', kind: 'mfas', field: 'identityId', value: ctx.identityId }, ...(await clearPassedMfa(ctx))],
    at,
  );
  return {};
}

/**
 * Accepts a recovery code (consumed: the returned op removes it, expecting the record it was
 * found in, so two requests cannot both spend it) or a TOTP code (no op); anything else is 400
 * MFA_INVALID_TOKEN.
 */
function checkCode(mfa: Entity, code: string, at: string): Op[] {
  const codes = Array.isArray(mfa.recoveryCodes) ? (mfa.recoveryCodes as string[]) : [];
  const used = code === '' ? -1 : codes.indexOf(code);
  if (used >= 0) {
    const left = codes.filter((_, i) => i !== used);
    return [{ op: 'set', kind: 'mfas', id: mfa.id, fields: { recoveryCodes: left, updatedAt: at }, expect: recordFingerprint(mfa) }];
  }
  if (verifyTotp(String(mfa.secret), code, mfaNow())) return [];
  throw new ApiError('MFA_INVALID_TOKEN');
}

function sessionPassed(apiSessionId: string, at: string, extra: Record<string, unknown> = {}): Op {
  return { op: 'set', kind: 'api-sessions', id: apiSessionId, fields: { ...extra, isMfaComplete: true, mfaPassedAt: at }, ifExists: true };
}

/** Without MFA no session of the identity has passed it any more (upstream clears the posture). */
async function clearPassedMfa(ctx: MfaCommandContext): Promise<Op[]> {
  const ops: Op[] = [];
  for await (const id of ctx.replica.idsWhere('api-sessions', 'identityId', ctx.identityId)) {
    ops.push({ op: 'set', kind: 'api-sessions', id, fields: { mfaPassedAt: null }, ifExists: true });
  }
  return ops;
}
