// The identity actor: serialises every command for one identity (CRUD, disable/enable, login)
// and holds its volatile state: the updb failed-attempt counter used for lockout.

import type { Entity, Op } from '../domain/commands.js';
import { disableFields, isDisabled } from '../domain/identity-state.js';
import { ApiError, fieldError } from '../errors.js';
import type { Actor, ActorMessage } from './actor-host.js';
import { createApiSession, type LoginResult, type SessionRequest } from './api-session-factory.js';
import type { CredentialDeps } from './credentials/credential-deps.js';
import { createIdentity } from './credentials/identity-create.js';
import { handleCredentialCommand } from './credentials/identity-credentials.js';
import { loginExtJwt } from './ext-jwt-login.js';
import { handleMfaCommand } from './mfa/mfa-commands.js';
import { createTotpToken } from './mfa/totp-token.js';
import { handlePostureCommand } from './posture/posture-commands.js';
import type { PostureRuntime } from './posture/posture-runtime.js';

/** What the identity actor needs: the credential functions' dependencies, and posture's. */
export interface IdentityActorDeps extends CredentialDeps {
  /** Clock, timers and messaging of the posture feature (defaults: real time, no timers). */
  posture?: PostureRuntime;
}

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

  async handle(msg: ActorMessage): Promise<unknown> {
    const { writer } = this.deps;
    switch (msg.op) {
      case 'create':
        return createIdentity(this.deps, this.id, msg.body);
      case 'replace':
        return writer.replace('identities', this.id, msg.body);
      case 'patch':
        return writer.patch('identities', this.id, msg.body);
      case 'delete':
        return writer.delete('identities', this.id);
      case 'disable':
        return this.disable(msg.body);
      case 'enable':
        return this.enable();
      case 'loginPassword':
        return this.loginPassword(msg);
      case 'enroll':
      case 'enrollCa':
      case 'enrollToken':
      case 'loginCert':
      case 'extendCert':
      case 'extendCertVerify':
        return handleCredentialCommand(this.deps, this.id, msg);
      case 'loginExtJwt':
        return loginExtJwt(this.id, this.deps, msg);
      case 'mfaEnroll':
      case 'mfaVerify':
      case 'mfaAuthenticate':
      case 'mfaRegenerateCodes':
      case 'mfaDelete':
      case 'mfaRemove':
        return handleMfaCommand({ identityId: this.id, replica: this.deps.replica, proposer: this.deps.proposer }, msg);
      case 'mfaTotpToken':
        return createTotpToken(this.deps, this.id, msg);
      case 'postureResponses':
      case 'postureSnapshot':
      case 'postureData':
      case 'failedServiceRequests':
      case 'postureTimer':
      case 'postureReevaluate':
      case 'postureForget':
      case 'createSession':
      case 'deleteSession':
        return handlePostureCommand(this, msg);
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown identity operation ${msg.op}` });
    }
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

  private async loginPassword(msg: ActorMessage): Promise<LoginResult> {
    const { replica, pool } = this.deps;
    const authenticator = await replica.get('authenticators', String(msg.authenticatorId));
    const identity = await replica.get('identities', this.id);
    if (!identity || !authenticator || authenticator.identityId !== this.id || authenticator.method !== 'updb') {
      throw new ApiError('INVALID_AUTH');
    }
    const policy = await replica.get('auth-policies', String(identity.authPolicyId ?? 'default'));
    const updbPolicy = (policy?.primary as { updb?: Record<string, unknown> } | undefined)?.updb ?? {};
    if (updbPolicy.allowed === false) throw new ApiError('INVALID_AUTH', { code: 'UNHANDLED', message: 'updb authentication is not allowed by the auth policy' });
    const ok = await pool.verifyPassword(String(msg.password), String(authenticator.passwordHash), String(authenticator.salt));
    if (!ok) {
      await this.countFailure(updbPolicy);
      throw new ApiError('INVALID_AUTH');
    }
    if (isDisabled(identity)) throw new ApiError('INVALID_AUTH', { code: 'UNHANDLED', message: 'the identity is disabled' });
    this.failedAttempts = 0;
    return createApiSession(this.deps, identity, authenticator.id, msg as SessionRequest);
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
