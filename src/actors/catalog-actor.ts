// A catalog actor: one per resource kind that has no per-entity actor. Serialises that kind's
// create / replace / patch / delete commands through the generic writer.

import { ApiError } from '../errors.js';
import type { Actor, ActorMessage } from './actor-host.js';
import type { EntityWriter } from './entity-writer.js';

export class CatalogActor implements Actor {
  constructor(
    private readonly kind: string,
    private readonly writer: EntityWriter,
    /** Set when this actor serves one entity of the kind (entity families). */
    private readonly entityId?: string,
  ) {}

  isIdle(): boolean {
    return true;
  }

  async handle(msg: ActorMessage): Promise<unknown> {
    const id = this.entityId ?? String(msg.id ?? '');
    switch (msg.op) {
      case 'create':
        return this.writer.create(this.kind, id, msg.body);
      case 'replace':
        return this.writer.replace(this.kind, id, msg.body);
      case 'patch':
        return this.writer.patch(this.kind, id, msg.body);
      case 'delete':
        return this.writer.delete(this.kind, id);
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown ${this.kind} operation ${msg.op}` });
    }
  }
}
