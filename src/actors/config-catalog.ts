// The configs catalog actor: validates a config's `data` against its config type's JSON Schema
// (first error, 400 on `data.<path>`) before the generic writer proposes the write.

import type { Entity } from '../domain/commands.js';
import { resourceOf } from '../domain/registry.js';
import { validateBody } from '../domain/validate.js';
import { ApiError, fieldError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import { CatalogActor } from './catalog-actor.js';
import { ConfigSchemas } from './config-schemas.js';
import type { EntityWriter } from './entity-writer.js';

const KIND = 'configs';

export class ConfigCatalog extends CatalogActor {
  /** Compiled validators, per config type version. */
  private readonly schemas = new ConfigSchemas();

  constructor(private readonly deps: { replica: Replica; writer: EntityWriter }) {
    super(KIND, deps.writer);
  }

  /** Never idle: the validator cache is worth keeping. */
  override isIdle(): boolean {
    return false;
  }

  protected override async create(id: string, body: unknown): Promise<unknown> {
    await this.checkCreate(body);
    return super.create(id, body);
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<unknown> {
    await this.checkUpdate(id, body, mode);
    return super.update(id, body, mode);
  }

  private async checkCreate(body: unknown): Promise<void> {
    const values = validateBody(resourceOf(KIND), body, 'create');
    const type = await this.deps.replica.get('config-types', String(values.configTypeId));
    if (!type) throw fieldError('configTypeId', values.configTypeId, 'no config-type found with the given id');
    this.schemas.validate(type, values.data);
  }

  /** configTypeId is create-only: data is checked against the stored config's type. */
  private async checkUpdate(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const old = await this.deps.replica.get(KIND, id);
    if (!old) throw new ApiError('NOT_FOUND');
    const values = validateBody(resourceOf(KIND), body, mode);
    if (values.data === undefined) return;
    this.schemas.validate(await this.typeOf(old), values.data);
  }

  private async typeOf(config: Entity): Promise<Entity> {
    const type = await this.deps.replica.get('config-types', String(config.configTypeId));
    if (!type) throw fieldError('configTypeId', config.configTypeId, 'no config-type found with the given id');
    return type;
  }
}
