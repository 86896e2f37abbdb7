// The authenticators catalog actor: creates and updates updb and certificate authenticators,
// the caller's own updb changes (current password required) and certificate extension requests.
// Passwords are checked against the identity's auth policy and hashed on the worker pool.

import { X509Certificate } from 'node:crypto';
import { recordFingerprint, type Entity } from '../domain/commands.js';
import { checkPasswordRules, type UpdbRules } from '../domain/password-rules.js';
import { resourceOf } from '../domain/registry.js';
import { validateBody } from '../domain/validate.js';
import { ApiError, fieldError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { WorkerPool } from '../workers/pool.js';
import { CatalogActor } from './catalog-actor.js';
import type { EntityWriter } from './entity-writer.js';
import type { Proposer } from './proposer.js';

export interface AuthenticatorCatalogDeps {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
  pool: WorkerPool;
}

export class AuthenticatorCatalog extends CatalogActor {
  constructor(private readonly deps: AuthenticatorCatalogDeps) {
    super('authenticators', deps.writer);
    this.extra.updateSelf = (id, msg) => this.updateSelf(id, String(msg.identityId ?? ''), msg.body, msg.mode === 'patch' ? 'patch' : 'replace');
    this.extra.requestExtend = (id, msg) => this.requestExtend(id, msg.body);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const { replica, proposer } = this.deps;
    const values = validateBody(resourceOf('authenticators'), body, 'create');
    const identity = await replica.get('identities', String(values.identityId));
    if (!identity) throw fieldError('identityId', values.identityId, 'no identity found with the given id');
    if (identity.typeId === 'Router') throw fieldError('identityId', identity.id, 'authenticators cannot be created for router identities');
    for await (const existingId of replica.idsWhere('authenticators', 'identityId', identity.id)) {
      const existing = await replica.get('authenticators', existingId);
      if (existing?.method === values.method) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
    }
    const at = new Date().toISOString();
    const record: Entity = { id, createdAt: at, updatedAt: at, tags: (values.tags as Entity['tags']) ?? {}, method: values.method, identityId: identity.id };
    if (values.method === 'updb') {
      if (values.username === undefined) throw fieldError('username', null, 'username is required for method updb');
      if (values.password === undefined) throw fieldError('password', null, 'password is required for method updb');
      Object.assign(record, { username: values.username, fingerprint: null }, await this.hashFor(identity, String(values.password)));
    } else {
      Object.assign(record, this.certFields(values.certPem), { username: null });
      if (await replica.findUnique('authenticators', 'fingerprint', record.fingerprint)) throw new ApiError('CERT_IN_USE');
    }
    await proposer.propose([{ op: 'create', kind: 'authenticators', record }], at);
    return { id };
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<Record<string, never>> {
    const { replica, proposer } = this.deps;
    const old = await replica.get('authenticators', id);
    if (!old) throw new ApiError('NOT_FOUND');
    const values = validateBody(resourceOf('authenticators'), body, mode);
    const at = new Date().toISOString();
    const record: Entity = { ...old, updatedAt: at };
    if (values.tags !== undefined) record.tags = (values.tags as Entity['tags']) ?? {};
    if (old.method !== 'updb') {
      if (values.username !== undefined || values.password !== undefined) throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
    } else {
      if (values.username !== undefined) record.username = values.username;
      if (values.password !== undefined) {
        const identity = await replica.get('identities', String(old.identityId));
        Object.assign(record, await this.hashFor(identity, String(values.password)));
      }
    }
    await proposer.propose([{ op: 'update', kind: 'authenticators', record, expect: recordFingerprint(old) }], at);
    return {};
  }

  /** `/current-identity/authenticators/{id}` PUT/PATCH: only the caller's own updb
   * authenticator, and only with its current password (verified on the worker pool). */
  private async updateSelf(id: string, identityId: string, body: unknown, mode: 'replace' | 'patch'): Promise<Record<string, never>> {
    const old = await this.deps.replica.get('authenticators', id);
    if (!old || old.identityId !== identityId) throw new ApiError('NOT_FOUND');
    if (old.method !== 'updb') throw new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');
    const { currentPassword, ...changes } = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (typeof currentPassword !== 'string' || currentPassword === '') throw fieldError('currentPassword', null, 'currentPassword is required');
    if (!(await this.deps.pool.verifyPassword(currentPassword, String(old.passwordHash), String(old.salt)))) {
      throw new ApiError('UNAUTHORIZED', { field: 'currentPassword', value: '******', reason: 'invalid current password' });
    }
    return this.update(id, changes, mode);
  }

  /** Flags a certificate authenticator for early extension (and optionally a key roll). */
  private async requestExtend(id: string, body: unknown): Promise<Record<string, never>> {
    const old = await this.deps.replica.get('authenticators', id);
    if (!old) throw new ApiError('NOT_FOUND');
    if (old.method !== 'cert') throw new ApiError('UNAUTHORIZED', { code: 'UNHANDLED', message: 'authenticator is not a certificate authenticator' });
    const rollKeys = (body as { rollKeys?: unknown } | null)?.rollKeys;
    if (rollKeys !== undefined && typeof rollKeys !== 'boolean') throw fieldError('rollKeys', rollKeys, 'rollKeys in body must be of type boolean');
    const at = new Date().toISOString();
    const fields = { isExtendRequested: true, isKeyRollRequested: rollKeys === true, extendRequestedAt: at, updatedAt: at };
    await this.deps.proposer.propose([{ op: 'set', kind: 'authenticators', id, fields }], at);
    return {};
  }

  private hashFor(identity: Entity | undefined, password: string): Promise<{ passwordHash: string; salt: string }> {
    return hashPasswordFor(this.deps, identity, password);
  }

  private certFields(certPem: unknown): { certPem: string; fingerprint: string } {
    if (typeof certPem !== 'string' || !certPem.includes('-----BEGIN CERTIFICATE-----')) {
      throw fieldError('certPem', certPem ?? null, 'certPem must be a PEM encoded certificate for method cert');
    }
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(certPem);
    } catch {
      throw fieldError('certPem', '(unparsable)', 'certPem could not be parsed as an X.509 certificate');
    }
    return { certPem: cert.toString(), fingerprint: cert.fingerprint.replace(/:/g, '').toLowerCase() };
  }
}

/** Checks the identity's auth-policy password rules, then hashes on the worker pool. The one
 * path every updb password takes (authenticator writes, updb enrollment). */
export async function hashPasswordFor(
  deps: { replica: Replica; pool: WorkerPool },
  identity: Entity | undefined,
  password: string,
): Promise<{ passwordHash: string; salt: string }> {
  const policy = await deps.replica.get('auth-policies', String(identity?.authPolicyId ?? 'default'));
  const rules = ((policy?.primary as { updb?: UpdbRules } | undefined)?.updb ?? {}) as UpdbRules;
  checkPasswordRules(password, rules);
  const { hash, salt } = await deps.pool.hashPassword(password);
  return { passwordHash: hash, salt };
}
