// The per-kind actor every catalog shares: create / replace / patch / delete through steps a
// kind may override (defaults: the generic EntityWriter), plus extra operations by name.
// Stateless: it only serialises the kind's commands.

import type { Kind } from '../domain/registry.js';
import { unknownOperation } from '../protocol/v1/message-fields.js';
import type { Actor, ActorMessage } from './actor-host.js';
import type { EntityWriter } from './entity-writer.js';

/** An operation beyond CRUD (e.g. `verify` of a CA), given the entity id and the message. */
export type ExtraOp = (id: string, msg: ActorMessage) => Promise<unknown>;

export class CatalogActor implements Actor {
  /** Operations beyond CRUD, by name; subclasses register theirs in the constructor. */
  protected readonly extra: Record<string, ExtraOp> = {};

  constructor(
    protected readonly kind: Kind,
    protected readonly writer: EntityWriter,
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
        return this.create(id, msg.body);
      case 'replace':
      case 'patch':
        return this.update(id, msg.body, msg.op);
      case 'delete':
        return this.remove(id);
    }
    const extra = this.extra[msg.op];
    if (!extra) throw unknownOperation(this.kind, msg.op);
    return extra(id, msg);
  }

  protected create(id: string, body: unknown): Promise<unknown> {
    return this.writer.create(this.kind, id, body);
  }

  protected update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<unknown> {
    return mode === 'patch' ? this.writer.patch(this.kind, id, body) : this.writer.replace(this.kind, id, body);
  }

  protected remove(id: string): Promise<unknown> {
    return this.writer.delete(this.kind, id);
  }
}
