// The authenticators catalog actor: creates and updates updb and certificate authenticators.
// Passwords are checked against the identity's auth policy and hashed on the worker pool.

import { X509Certificate } from 'node:crypto';
import type { Entity } from '../domain/commands.js';
import { checkPasswordRules, type UpdbRules } from '../domain/password-rules.js';
import { resourceOf } from '../domain/registry.js';
import { validateBody } from '../domain/validate.js';
import { ApiError, fieldError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { WorkerPool } from '../workers/pool.js';
import type { Actor, ActorMessage } from './actor-host.js';
import type { EntityWriter } from './entity-writer.js';
import type { Proposer } from './proposer.js';

export interface AuthenticatorCatalogDeps {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
  pool: WorkerPool;
}

export class AuthenticatorCatalog implements Actor {
  constructor(private readonly deps: AuthenticatorCatalogDeps) {}

  isIdle(): boolean {
    return true;
  }

  async handle(msg: ActorMessage): Promise<unknown> {
    const id = String(msg.id ?? '');
    switch (msg.op) {
      case 'create':
        return this.create(id, msg.body);
      case 'replace':
      case 'patch':
        return this.update(id, msg.body, msg.op);
      case 'delete':
        return this.deps.writer.delete('authenticators', id);
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown authenticators operation ${msg.op}` });
    }
  }

  private async create(id: string, body: unknown): Promise<{ id: string }> {
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

  private async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<Record<string, never>> {
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
    await proposer.propose([{ op: 'update', kind: 'authenticators', record }], at);
    return {};
  }

  /** Checks the identity's auth-policy password rules, then hashes on the worker pool. */
  private async hashFor(identity: Entity | undefined, password: string): Promise<{ passwordHash: string; salt: string }> {
    const policy = await this.deps.replica.get('auth-policies', String(identity?.authPolicyId ?? 'default'));
    const rules = ((policy?.primary as { updb?: UpdbRules } | undefined)?.updb ?? {}) as UpdbRules;
    checkPasswordRules(password, rules);
    const { hash, salt } = await this.deps.pool.hashPassword(password);
    return { passwordHash: hash, salt };
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
