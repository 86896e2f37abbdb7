// The revocation catalog: a revocation takes effect in the command that stores it. Revoking an
// API session ends it; revoking an identity ends every API session it has (a token issued
// before the revocation stops working at its next request, as upstream; later logins work).
// A JTI revocation is only stored: Weft's sessions are not JWTs.

import type { Op } from '../domain/commands.js';
import type { ActorDeps } from './actor-deps.js';
import { CatalogActor } from './catalog-actor.js';

const KIND = 'revocations';

export class RevocationCatalog extends CatalogActor {
  constructor(private readonly deps: ActorDeps) {
    super(KIND, deps.writer);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    const op = this.deps.writer.buildCreate(KIND, id, body, at);
    const ops: Op[] = [op, ...endedSessions(String(op.record.type), id)];
    await this.deps.proposer.propose(ops, at);
    return { id };
  }
}

/** The API sessions a revocation ends, as ops applied with it. */
function endedSessions(type: string, id: string): Op[] {
  switch (type) {
    case 'API_SESSION':
      return [{ op: 'delete', kind: 'api-sessions', id, ifExists: true, system: true }];
    case 'IDENTITY':
      return [{ op: 'deleteWhere', kind: 'api-sessions', field: 'identityId', value: id, system: true }];
    default:
      return [];
  }
}
