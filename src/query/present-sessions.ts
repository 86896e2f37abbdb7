// Presentation of API sessions (`token` left empty) and service sessions: references to the API session, the service and the passing
// service policies, and the edge routers the identity and the service share (with isOnline from
// the node's router presence). Node-local reads only.

import type { Entity } from '../domain/commands.js';
import type { AccessReader } from '../store/access-reader.js';
import type { Replica } from '../store/replica.js';
import { entityRef, type Decorators, type Wire } from './present.js';
import type { PresenceView } from './present-routers.js';

/** API sessions (`token` left empty) and service sessions with their references. */
export function sessionDecorators(reader: AccessReader, presence?: PresenceView): Decorators {
  return {
    // Tokens are stored only as hashes: an API session shows `token` empty (the spec requires the
    // string; generated clients refuse the session without it).
    'api-sessions': async (wire) => {
      if (wire.token === undefined) wire.token = '';
    },
    sessions: async (wire, record, { replica }) => {
      const apiSessionId = String(record.apiSessionId ?? '');
      const serviceId = String(record.serviceId ?? '');
      const service = await replica.get('services', serviceId);
      wire.apiSession = entityRef('api-sessions', apiSessionId, apiSessionId);
      wire.service = entityRef('services', serviceId, String(service?.name ?? ''));
      wire.edgeRouters = await sessionRouters(replica, reader, String(record.identityId ?? ''), serviceId, presence);
      wire.servicePolicies = await policyRefs(replica, (record.servicePolicies as string[] | undefined) ?? []);
    },
  };
}

/** The routers both the identity (edge router policies) and the service (service edge router policies) may use. */
async function sessionRouters(replica: Replica, reader: AccessReader, identityId: string, serviceId: string, presence?: PresenceView): Promise<Wire[]> {
  const mine = await reader.reachable('identities', identityId, 'edge-router-policies', 'edge-routers');
  const theirs = await reader.reachable('services', serviceId, 'service-edge-router-policies', 'edge-routers');
  const common = [...mine].filter((id) => theirs.has(id)).sort();
  const routers = (await replica.getMany('edge-routers', common)).filter((r): r is Entity => r !== undefined);
  return routers.map((r) => ({
    id: r.id,
    name: r.name,
    hostname: '',
    isOnline: presence?.isOnline(r.id) ?? false,
    urls: {},
    supportedProtocols: {},
    syncStatus: 'SYNC_UNKNOWN',
    cost: r.cost ?? 0,
    noTraversal: r.noTraversal ?? false,
    disabled: r.disabled ?? false,
    appData: r.appData ?? {},
  }));
}

async function policyRefs(replica: Replica, ids: string[]): Promise<Wire[]> {
  const policies = await replica.getMany('service-policies', ids);
  return policies.filter((p): p is Entity => p !== undefined).map((p) => entityRef('service-policies', p.id, String(p.name)));
}
