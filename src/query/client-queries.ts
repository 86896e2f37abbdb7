// Client-API reads of the calling identity: the services it may dial or bind (others are 404)
// with their posture queries, evaluated against the posture snapshot its actor sent along, and
// its own service sessions. Node-local reads only; never writes.

import { postureQueries } from '../domain/posture/index.js';
import { ApiError } from '../errors.js';
import type { Scope } from '../store/query-engine.js';
import type { Replica } from '../store/replica.js';
import { PostureReads, type PostureSnapshot } from './posture-reads.js';
import type { Wire } from './present.js';
import type { HandlerTable } from '../protocol/v1/handler-table.js';
import type { ListParams, QueryRequest, Viewer } from '../protocol/v1/query-messages.js';

/** Adds to one presented list item what the asking op shows beyond the resource. */
export type DecorateItem = (wire: Wire) => Promise<Wire>;

/** How a list page is made: `scope` narrows the kind's records; with `stream`, an unpaged list
 * answers a cursor; `decorate` adds to each presented item what the asking op shows beyond the
 * resource (the client API's posture queries); `asText` answers the page as JSON text, made from
 * the entities' kept renderings (not with `decorate`). */
export interface ListOptions {
  scope?: Scope;
  stream?: boolean;
  decorate?: DecorateItem;
  asText?: boolean;
}

/** What the client queries need from the query handler (a `stream` list may answer a cursor). */
export interface ClientQueryDeps {
  replica: Replica;
  list: (kind: string, params: ListParams, viewer: Viewer, options?: ListOptions) => Promise<unknown>;
  get: (kind: string, id: string, viewer: Viewer) => Promise<unknown>;
}

/** `clientServices` (list, or one with `id`), `clientServiceVisible` (may the identity dial or
 * bind service `id`) and `clientSessions` (list, or one with `id`). */
export function clientQueries(deps: ClientQueryDeps): Pick<HandlerTable<QueryRequest>, 'clientServices' | 'clientServiceVisible' | 'clientSessions'> {
  const reads = () => new PostureReads(deps.replica);
  return {
    clientServices: async (m) => {
      const posture = reads();
      const viewer = m.viewer ?? {};
      const visible = await visibleServices(posture, m.identityId);
      const withQueries = (wire: Wire) => addPostureQueries(posture, wire, m.identityId, m.apiSessionId ?? '', m.posture as unknown as PostureSnapshot);
      if (m.id !== undefined) {
        if (!visible.has(m.id)) throw new ApiError('NOT_FOUND');
        return withQueries((await deps.get('services', m.id, viewer)) as Wire);
      }
      return deps.list('services', m.params ?? {}, viewer, { scope: { ids: visible, stored: true }, stream: m.stream === true, decorate: withQueries });
    },
    clientServiceVisible: async (m) => (await visibleServices(reads(), m.identityId)).has(m.id),
    clientSessions: async (m) => {
      const viewer = m.viewer ?? {};
      if (m.id !== undefined) {
        const session = await deps.replica.get('sessions', m.id);
        if (!session || (!m.isAdmin && session.identityId !== m.identityId)) throw new ApiError('NOT_FOUND');
        return deps.get('sessions', m.id, viewer);
      }
      return deps.list('sessions', m.params ?? {}, viewer, { scope: m.isAdmin ? undefined : { field: 'identityId', value: m.identityId }, stream: m.stream === true });
    },
  };
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
