// The config-types catalog actor: checks that a config type's `schema` is a JSON Schema ajv can
// compile (400 on `schema` otherwise), then writes through the generic writer.

import { resourceOf } from '../domain/registry.js';
import { validateBody, type WriteMode } from '../domain/validate.js';
import { ApiError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import { CatalogActor } from './catalog-actor.js';
import { ConfigSchemas } from './config-schemas.js';
import type { EntityWriter } from './entity-writer.js';

const KIND = 'config-types';

export class ConfigTypeCatalog extends CatalogActor {
  private readonly schemas = new ConfigSchemas();

  constructor(private readonly deps: { replica: Replica; writer: EntityWriter }) {
    super(KIND, deps.writer);
  }

  protected override create(id: string, body: unknown): Promise<unknown> {
    this.checkSchema(body, 'create');
    return super.create(id, body);
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<unknown> {
    if (!(await this.deps.replica.get(KIND, id))) throw new ApiError('NOT_FOUND');
    this.checkSchema(body, mode);
    return super.update(id, body, mode);
  }

  private checkSchema(body: unknown, mode: WriteMode): void {
    const values = validateBody(resourceOf(KIND), body, mode);
    if (values.schema !== undefined && values.schema !== null) this.schemas.checkSchema(values.schema as Record<string, unknown>);
  }
}
