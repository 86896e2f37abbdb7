// The auth policy catalog actor: complete policies on create and replace, leaf-by-leaf patches,
// upstream's minimums, and every named signer must exist (404, as upstream). Deleting `default`
// or a policy in use is refused in apply (409).

import { prepareAuthPolicy } from '../domain/auth-policy-rules.js';
import type { Entity } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import { CatalogActor } from './catalog-actor.js';
import type { ActorDeps } from './actor-deps.js';

const KIND = 'auth-policies';

export class AuthPolicyCatalog extends CatalogActor {
  constructor(private readonly deps: ActorDeps) {
    super(KIND, deps.writer);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    const op = this.deps.writer.buildCreate(KIND, id, body, at);
    prepareAuthPolicy(op.record, undefined, 'create');
    await this.checkSigners(op.record);
    await this.deps.proposer.propose([op], at);
    return { id };
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const at = new Date().toISOString();
    const { op, old } = await this.deps.writer.buildUpdate(KIND, id, body, mode, at);
    const given = (body ?? {}) as Record<string, unknown>;
    const sections = ['primary', 'secondary'].filter((name) => mode === 'replace' || given[name] !== undefined);
    const values: Record<string, unknown> = Object.fromEntries(sections.map((name) => [name, op.record[name]]));
    prepareAuthPolicy(values, old, mode);
    Object.assign(op.record, values);
    await this.checkSigners(op.record);
    await this.deps.proposer.propose([op], at);
  }

  /** Upstream answers 404 with the field of the first unknown signer. */
  private async checkSigners(record: Entity): Promise<void> {
    const allowed = ((record.primary as { extJwt?: { allowedSigners?: string[] } }).extJwt?.allowedSigners ?? []) as string[];
    const checks: [string, string][] = allowed.map((signerId, i) => [`primary.extJwt.allowedSigners[${i}]`, signerId]);
    const required = (record.secondary as { requireExtJwtSigner?: string | null }).requireExtJwtSigner;
    if (typeof required === 'string') checks.push(['secondary.requireExtJwtSigner', required]);
    for (const [field, signerId] of checks) {
      if (!(await this.deps.replica.get('external-jwt-signers', signerId))) {
        throw new ApiError('NOT_FOUND', { field, value: signerId, reason: 'no external JWT signer found with the given id' });
      }
    }
  }
}
