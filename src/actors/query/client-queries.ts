// Client-API reads of the calling identity: the services it may dial or bind (others are 404)
// with their posture queries, evaluated against the posture snapshot its actor sent along, and
// its own service sessions. Node-local reads only; never writes.

import { postureQueries } from '../../domain/posture/index.js';
import { ApiError } from '../../errors.js';
import type { Scope } from '../../store/query-engine.js';
import type { Replica } from '../../store/replica.js';
import { PostureReads, type PostureSnapshot } from '../posture/posture-reads.js';
import type { Wire } from './present.js';
import type { ListParams } from './query-handler.js';

/** What the client queries need from the query handler. */
export interface ClientQueryDeps {
  replica: Replica;
  list: (kind: string, params: ListParams, scope?: Scope) => Promise<unknown>;
  get: (kind: string, id: string) => Promise<unknown>;
}

interface Page {
  data: Wire[];
  meta: Wire;
}

/** `clientServices` (list, or one with `id`), `clientServiceVisible` (may the identity dial or
 * bind service `id`) and `clientSessions` (list, or one with `id`). */
export async function answerClientQuery(msg: Record<string, unknown>, deps: ClientQueryDeps): Promise<unknown> {
  const identityId = String(msg.identityId ?? '');
  const id = typeof msg.id === 'string' ? msg.id : undefined;
  const params = (msg.params ?? {}) as ListParams;
  const reads = new PostureReads(deps.replica);
  switch (msg.op) {
    case 'clientServices': {
      const visible = await visibleServices(reads, identityId);
      const withQueries = (wire: Wire) => addPostureQueries(reads, wire, identityId, String(msg.apiSessionId ?? ''), msg.posture as PostureSnapshot);
      if (id !== undefined) {
        if (!visible.has(id)) throw new ApiError('NOT_FOUND');
        return withQueries((await deps.get('services', id)) as Wire);
      }
      const page = (await deps.list('services', params, { ids: visible })) as Page;
      return { ...page, data: await Promise.all(page.data.map(withQueries)) };
    }
    case 'clientServiceVisible':
      return (await visibleServices(reads, identityId)).has(String(id));
    case 'clientSessions': {
      const isAdmin = msg.isAdmin === true;
      if (id !== undefined) {
        const session = await deps.replica.get('sessions', id);
        if (!session || (!isAdmin && session.identityId !== identityId)) throw new ApiError('NOT_FOUND');
        return deps.get('sessions', id);
      }
      return deps.list('sessions', params, isAdmin ? undefined : { field: 'identityId', value: identityId });
    }
    default:
      throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown client query ${String(msg.op)}` });
  }
}

/** Services the identity may dial or bind (through service policies). */
async function visibleServices(reads: PostureReads, identityId: string): Promise<Set<string>> {
  return reads.reader.reachable('identities', identityId, 'service-policies', 'services');
}

async function addPostureQueries(reads: PostureReads, wire: Wire, identityId: string, apiSessionId: string, posture: PostureSnapshot): Promise<Wire> {
  const permissions = (wire.permissions as string[] | undefined) ?? [];
  const policies = posture.anyChecksExist ? await reads.policyChecks(identityId, String(wire.id)) : [];
  wire.postureQueries = postureQueries({
    permissions,
    anyChecksExist: posture.anyChecksExist,
    policies,
    data: posture.data,
    apiSessionId,
    now: posture.now,
  });
  return wire;
}
