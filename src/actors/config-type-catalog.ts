// The config-types catalog actor: checks that a config type's `schema` is a JSON Schema ajv can
// compile (400 on `schema` otherwise), then writes through the generic writer.

import { resourceOf } from '../domain/registry.js';
import { validateBody, type WriteMode } from '../domain/validate.js';
import { ApiError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { Actor, ActorMessage } from './actor-host.js';
import { ConfigSchemas } from './config-schemas.js';
import type { EntityWriter } from './entity-writer.js';

const KIND = 'config-types';

export class ConfigTypeCatalog implements Actor {
  private readonly schemas = new ConfigSchemas();

  constructor(private readonly deps: { replica: Replica; writer: EntityWriter }) {}

  isIdle(): boolean {
    return true;
  }

  async handle(msg: ActorMessage): Promise<unknown> {
    const id = String(msg.id ?? '');
    const { writer } = this.deps;
    switch (msg.op) {
      case 'create':
        this.checkSchema(msg.body, 'create');
        return writer.create(KIND, id, msg.body);
      case 'replace':
      case 'patch':
        if (!(await this.deps.replica.get(KIND, id))) throw new ApiError('NOT_FOUND');
        this.checkSchema(msg.body, msg.op);
        return msg.op === 'replace' ? writer.replace(KIND, id, msg.body) : writer.patch(KIND, id, msg.body);
      case 'delete':
        return writer.delete(KIND, id);
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown ${KIND} operation ${msg.op}` });
    }
  }

  private checkSchema(body: unknown, mode: WriteMode): void {
    const values = validateBody(resourceOf(KIND), body, mode);
    if (values.schema !== undefined && values.schema !== null) this.schemas.checkSchema(values.schema as Record<string, unknown>);
  }
}
