// The terminators catalog actor: the service and the router (transit or edge) a terminator
// names must exist (400 on `service` / `router`), then the generic writer proposes the write.

import { resourceOf } from '../domain/registry.js';
import { validateBody, type WriteMode } from '../domain/validate.js';
import { ApiError, fieldError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import { CatalogActor } from './catalog-actor.js';
import type { EntityWriter } from './entity-writer.js';

const KIND = 'terminators';

export class TerminatorCatalog extends CatalogActor {
  constructor(private readonly deps: { replica: Replica; writer: EntityWriter }) {
    super(KIND, deps.writer);
  }

  protected override async create(id: string, body: unknown): Promise<unknown> {
    await this.checkRefs(body, 'create');
    return super.create(id, body);
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<unknown> {
    if (!(await this.deps.replica.get(KIND, id))) throw new ApiError('NOT_FOUND');
    await this.checkRefs(body, mode);
    return super.update(id, body, mode);
  }

  private async checkRefs(body: unknown, mode: WriteMode): Promise<void> {
    const values = validateBody(resourceOf(KIND), body, mode);
    if (values.service !== undefined && !(await this.deps.replica.get('services', String(values.service)))) {
      throw fieldError('service', values.service, 'no service found with the given id');
    }
    if (values.router !== undefined && !(await routerExists(this.deps.replica, String(values.router)))) {
      throw fieldError('router', values.router, 'no router found with the given id');
    }
  }
}

async function routerExists(replica: Replica, id: string): Promise<boolean> {
  return (await replica.get('routers', id)) !== undefined || (await replica.get('edge-routers', id)) !== undefined;
}
