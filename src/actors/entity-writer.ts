// Generic create / replace / patch / delete for any declared resource: validates the body
// against the declaration, applies the kind's write rules, stamps times and proposes the op.

import { recordFingerprint, type Entity, type Op } from '../domain/commands.js';
import { declarationOf, type Kind } from '../domain/registry.js';
import { fieldsOf, perDeclaration } from '../domain/resource.js';
import { validateBody, type WriteMode } from '../domain/validate.js';
import { prepareWrite } from '../domain/write-rules.js';
import { ApiError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { Proposer } from './proposer.js';

export class EntityWriter {
  constructor(
    private readonly replica: Replica,
    private readonly proposer: Proposer,
  ) {}

  /** Builds the create op for a body (without proposing), for callers that add more ops. */
  buildCreate(kind: Kind, id: string, body: unknown, at: string): Op & { op: 'create' } {
    const values = this.prepare(kind, body, undefined, 'create');
    const record: Entity = { ...values, id, createdAt: at, updatedAt: at, tags: (values.tags as Entity['tags']) ?? {} };
    return { op: 'create', kind, record };
  }

  async create(kind: Kind, id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    await this.proposer.propose([this.buildCreate(kind, id, body, at)], at);
    return { id };
  }

  async replace(kind: Kind, id: string, body: unknown): Promise<void> {
    await this.update(kind, id, body, 'replace');
  }

  async patch(kind: Kind, id: string, body: unknown): Promise<void> {
    await this.update(kind, id, body, 'patch');
  }

  async delete(kind: Kind, id: string): Promise<void> {
    await this.proposer.propose([{ op: 'delete', kind, id }]);
  }

  private async update(kind: Kind, id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const { op } = await this.buildUpdate(kind, id, body, mode, new Date().toISOString());
    await this.proposer.propose([op], op.record.updatedAt);
  }

  /** Builds the update op of a replace or patch (without proposing), for callers that add ops;
   * also returns the stored record it was built from (404 when there is none). The op expects
   * that record: apply refuses it (STALE_WRITE) if the entity changed meanwhile. */
  async buildUpdate(kind: Kind, id: string, body: unknown, mode: 'replace' | 'patch', at: string): Promise<{ op: Op & { op: 'update' }; old: Entity }> {
    const old = await this.replica.get(kind, id);
    if (!old) throw new ApiError('NOT_FOUND');
    const values = this.prepare(kind, body, old, mode);
    const base = mode === 'patch' ? old : keptOnReplace(kind, old);
    const record: Entity = { ...base, ...values, id, createdAt: old.createdAt, updatedAt: at } as Entity;
    if (record.tags === null || record.tags === undefined) record.tags = {};
    return { op: { op: 'update', kind, record, expect: recordFingerprint(old) }, old };
  }

  private prepare(kind: string, body: unknown, old: Entity | undefined, mode: WriteMode): Record<string, unknown> {
    const decl = declarationOf(kind);
    const values = validateBody(decl, body, mode);
    for (const name of transientFields(decl)) delete values[name];
    prepareWrite(decl, values, old, mode);
    return values;
  }
}

/** The fields a body may carry but a record never stores. */
const transientFields = perDeclaration((decl) => Object.entries(decl.fields).filter(([, spec]) => spec.transient).map(([name]) => name));

/** On replace, fields the client cannot write survive from the stored record. */
function keptOnReplace(kind: string, old: Entity): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fieldsOf(declarationOf(kind)))) {
    if ((spec.write ?? 'client') !== 'client' || spec.createOnly) kept[name] = old[name];
  }
  return kept;
}
