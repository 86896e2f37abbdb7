// The posture-checks catalog actor: validates the common fields from the declaration and the
// type-specific ones with domain/posture, keeps typeId immutable, counts versions, proposes.

import { recordFingerprint, type Entity } from '../domain/commands.js';
import { checkTypeIdUnchanged, validatePostureFields, type PostureCheckType } from '../domain/posture/index.js';
import { resourceOf } from '../domain/registry.js';
import { fieldsOf } from '../domain/resource.js';
import { validateBody, type WriteMode } from '../domain/validate.js';
import { prepareWrite } from '../domain/write-rules.js';
import { ApiError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import { CatalogActor } from './catalog-actor.js';
import type { EntityWriter } from './entity-writer.js';
import type { Proposer } from './proposer.js';

const KIND = 'posture-checks';

export interface PostureCheckCatalogDeps {
  replica: Replica;
  proposer: Proposer;
  writer: EntityWriter;
}

export class PostureCheckCatalog extends CatalogActor {
  constructor(private readonly deps: PostureCheckCatalogDeps) {
    super(KIND, deps.writer);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const values = commonFields(body, undefined, 'create');
    const typeId = values.typeId as PostureCheckType;
    const at = new Date().toISOString();
    const record: Entity = {
      ...values,
      ...validatePostureFields(typeId, body, 'create'),
      id,
      createdAt: at,
      updatedAt: at,
      tags: (values.tags as Entity['tags']) ?? {},
      version: 1,
    };
    await this.deps.proposer.propose([{ op: 'create', kind: KIND, record }], at);
    return { id };
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<Record<string, never>> {
    const old = await this.deps.replica.get(KIND, id);
    if (!old) throw new ApiError('NOT_FOUND');
    const values = commonFields(body, old, mode);
    const typeId = checkTypeIdUnchanged(body, old.typeId as PostureCheckType);
    const typed = validatePostureFields(typeId, body, mode);
    const at = new Date().toISOString();
    const base = mode === 'patch' ? old : keptOnReplace(old);
    const tags = (('tags' in values ? values.tags : old.tags) as Entity['tags']) ?? {};
    const version = (typeof old.version === 'number' ? old.version : 1) + 1;
    const record: Entity = { ...base, ...values, ...typed, id, typeId, tags, version, createdAt: old.createdAt, updatedAt: at };
    await this.deps.proposer.propose([{ op: 'update', kind: KIND, record, expect: recordFingerprint(old) }], at);
    return {};
  }
}

/** Declared fields from the body (typeId on create only), then the kind's write rules. */
function commonFields(body: unknown, old: Entity | undefined, mode: WriteMode): Record<string, unknown> {
  const decl = resourceOf(KIND);
  const values = validateBody(decl, body, mode);
  prepareWrite(decl, values, old, mode);
  return values;
}

/** On replace, what the client cannot write survives; typed fields are then set anew. */
function keptOnReplace(old: Entity): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fieldsOf(resourceOf(KIND)))) {
    if (((spec.write ?? 'client') !== 'client' || spec.createOnly) && name in old) kept[name] = old[name];
  }
  return kept;
}
