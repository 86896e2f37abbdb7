// The identity actor: serialises every command for one identity (CRUD, disable/enable, login)
// and holds its volatile state: the updb failed-attempt counter used for lockout.

import type { Entity, Op } from '../domain/commands.js';
import { disableFields, isDisabled } from '../domain/identity-state.js';
import { ApiError, fieldError } from '../errors.js';
import { dispatch, readMessage, type HandlerTable, type MessageOf } from '../protocol/v1/handler-table.js';
import { IDENTITY_PROTOCOL, type IdentityCommand } from '../protocol/v1/identity-commands.js';
import type { Actor, ActorMessage } from './actor-host.js';
import { createApiSession, type LoginResult } from './api-session-factory.js';
import type { IdentityActorDeps } from './actor-deps.js';
import { createIdentity } from './credentials/identity-create.js';
import { handleCredentialCommand } from './credentials/identity-credentials.js';
import { loginExtJwt } from './ext-jwt-login.js';
import { handleMfaCommand } from './mfa/mfa-commands.js';
import { createTotpToken } from './mfa/totp-token.js';
import { handlePostureCommand } from './posture/posture-commands.js';

export type { IdentityActorDeps };

export class IdentityActor implements Actor {
  private failedAttempts = 0;
  /** Volatile per-identity state of features (posture data, MFA timers, ...), by feature name.
   * An actor holding any is kept in memory. */
  readonly features = new Map<string, unknown>();

  constructor(
    readonly id: string,
    readonly deps: IdentityActorDeps,
  ) {}

  isIdle(): boolean {
    return this.failedAttempts === 0 && this.features.size === 0;
  }

  /** Runs one command of the identity family: a malformed message is 400 INVALID_MESSAGE, an
   * unknown op 501 UNKNOWN_OPERATION. */
  async handle(msg: ActorMessage): Promise<unknown> {
    return dispatch(IdentityActor.handlers, readMessage(IDENTITY_PROTOCOL, msg), this);
  }

  /** One handler per op of the identity family (a missing one does not compile). */
  private static readonly handlers: HandlerTable<IdentityCommand, IdentityActor> = {
    create: (m, actor) => createIdentity(actor.deps, actor.id, m.body),
    replace: (m, actor) => actor.deps.writer.replace('identities', actor.id, m.body),
    patch: (m, actor) => actor.deps.writer.patch('identities', actor.id, m.body),
    delete: (_m, actor) => actor.deps.writer.delete('identities', actor.id),
    disable: (m, actor) => actor.disable(m.body),
    enable: (_m, actor) => actor.enable(),
    loginPassword: (m, actor) => actor.loginPassword(m),
    enroll: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    enrollCa: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    enrollToken: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    loginCert: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    extendCert: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    extendCertVerify: (m, actor) => handleCredentialCommand(actor.deps, actor.id, m),
    loginExtJwt: (m, actor) => loginExtJwt(actor.id, actor.deps, m),
    mfaEnroll: (m, actor) => actor.mfa(m),
    mfaVerify: (m, actor) => actor.mfa(m),
    mfaAuthenticate: (m, actor) => actor.mfa(m),
    mfaRegenerateCodes: (m, actor) => actor.mfa(m),
    mfaDelete: (m, actor) => actor.mfa(m),
    mfaRemove: (m, actor) => actor.mfa(m),
    mfaTotpToken: (m, actor) => createTotpToken(actor.deps, actor.id, m),
    postureResponses: (m, actor) => handlePostureCommand(actor, m),
    postureSnapshot: (m, actor) => handlePostureCommand(actor, m),
    postureData: (m, actor) => handlePostureCommand(actor, m),
    failedServiceRequests: (m, actor) => handlePostureCommand(actor, m),
    postureTimer: (m, actor) => handlePostureCommand(actor, m),
    postureReevaluate: (m, actor) => handlePostureCommand(actor, m),
    postureForget: (m, actor) => handlePostureCommand(actor, m),
    createSession: (m, actor) => handlePostureCommand(actor, m),
    deleteSession: (m, actor) => handlePostureCommand(actor, m),
  };

  private mfa(msg: ActorMessage): Promise<unknown> {
    return handleMfaCommand({ identityId: this.id, replica: this.deps.replica, proposer: this.deps.proposer }, msg);
  }

  private async existing(): Promise<Entity> {
    const identity = await this.deps.replica.get('identities', this.id);
    if (!identity) throw new ApiError('NOT_FOUND');
    return identity;
  }

  private async disable(body: unknown): Promise<Record<string, never>> {
    const minutes = (body as { durationMinutes?: unknown } | null)?.durationMinutes;
    if (typeof minutes !== 'number' || !Number.isInteger(minutes)) {
      throw fieldError('durationMinutes', minutes ?? null, 'durationMinutes in body must be of type integer');
    }
    await this.existing();
    const at = new Date().toISOString();
    await this.deps.proposer.propose(this.disableOps(minutes, at), at);
    return {};
  }

  /** Disabling ends every API session of the identity in the same atomic command. */
  private disableOps(minutes: number, at: string): Op[] {
    return [
      { op: 'set', kind: 'identities', id: this.id, fields: { ...disableFields(minutes, at), updatedAt: at } },
      { op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: this.id },
    ];
  }

  private async enable(): Promise<Record<string, never>> {
    await this.existing();
    const at = new Date().toISOString();
    await this.deps.proposer.propose([
      { op: 'set', kind: 'identities', id: this.id, fields: { disabledAt: null, disabledUntil: null, updatedAt: at } },
    ], at);
    this.failedAttempts = 0;
    return {};
  }

  private async loginPassword(msg: MessageOf<IdentityCommand, 'loginPassword'>): Promise<LoginResult> {
    const { replica, pool } = this.deps;
    const authenticator = await replica.get('authenticators', msg.authenticatorId);
    const identity = await replica.get('identities', this.id);
    if (!identity || !authenticator || authenticator.identityId !== this.id || authenticator.method !== 'updb') {
      throw new ApiError('INVALID_AUTH');
    }
    const policy = await replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
    const updbPolicy = (policy?.primary as { updb?: Record<string, unknown> } | undefined)?.updb ?? {};
    if (updbPolicy.allowed === false) throw new ApiError('INVALID_AUTH', { code: 'UNHANDLED', message: 'updb authentication is not allowed by the auth policy' });
    const ok = await pool.verifyPassword(msg.password, String(authenticator.passwordHash), String(authenticator.salt));
    if (!ok) {
      await this.countFailure(updbPolicy);
      throw new ApiError('INVALID_AUTH');
    }
    if (isDisabled(identity)) throw new ApiError('INVALID_AUTH', { code: 'UNHANDLED', message: 'the identity is disabled' });
    this.failedAttempts = 0;
    return createApiSession(this.deps, identity, authenticator.id, msg);
  }

  /** Lockout: the failure that reaches maxAttempts disables the identity for the policy's duration. */
  private async countFailure(updbPolicy: Record<string, unknown>): Promise<void> {
    const maxAttempts = Number(updbPolicy.maxAttempts ?? 0);
    this.failedAttempts++;
    if (maxAttempts > 0 && this.failedAttempts >= maxAttempts) {
      this.failedAttempts = 0;
      const at = new Date().toISOString();
      await this.deps.proposer.propose(this.disableOps(Number(updbPolicy.lockoutDurationMinutes ?? 0), at), at);
    }
  }
}
