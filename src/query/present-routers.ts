// Presentation of edge routers, transit routers and terminators: the connection-state fields
// upstream adds to the stored record, and a terminator's service and router refs. A router is
// online while it has a posture stream to this node (the node-local RouterPresence); identities
// it reported show `hasEdgeRouterConnection`.

import { entityRef, type Decorators, type Wire } from './present.js';
import type { Entity } from '../domain/commands.js';

const ENROLLMENT_FIELDS = ['enrollmentToken', 'enrollmentJwt', 'enrollmentCreatedAt', 'enrollmentExpiresAt'] as const;

/** What presentation needs of the node's router presence (RouterPresence provides it). */
export interface PresenceView {
  /** Moves whenever a router connects or disconnects (renderings that show it go stale). */
  readonly version: number;
  isOnline(routerId: string): boolean;
  hasEdgeRouterConnection(identityId: string): boolean;
}

/** The edge-router, router, terminator and identity-connection decorators. */
export function routerDecorators(presence?: PresenceView): Decorators {
  return {
    'edge-routers': async (wire, record) => {
      routerState(wire, record);
      wire.isOnline = presence?.isOnline(record.id) ?? false;
      wire.hostname = '';
      wire.supportedProtocols = {};
      wire.syncStatus = 'SYNC_UNKNOWN';
      wire.versionInfo = { arch: '', buildDate: '', os: '', revision: '', version: '' };
      wire.appData ??= {};
      wire.certPem ??= null;
      wire._links = {
        ...(wire._links as Wire),
        'edge-router-policies': { href: `./edge-routers/${encodeURIComponent(record.id)}/edge-router-policies` },
        'service-edge-router-policies': { href: `./edge-routers/${encodeURIComponent(record.id)}/service-edge-router-policies` },
      };
    },
    routers: async (wire, record) => routerState(wire, record),
    terminators: async (wire, record, { replica }) => {
      const serviceId = String(record.service);
      const routerId = String(record.router);
      const service = await replica.get('services', serviceId);
      const router = (await replica.get('routers', routerId)) ?? (await replica.get('edge-routers', routerId));
      wire.serviceId = serviceId;
      wire.service = entityRef('services', serviceId, String(service?.name ?? ''));
      wire.routerId = routerId;
      wire.router = entityRef('routers', routerId, String(router?.name ?? ''));
      wire.identity ??= '';
      wire.dynamicCost = record.cost ?? 0;
    },
    identities: async (wire, record) => {
      const connected = presence?.hasEdgeRouterConnection(record.id) ?? false;
      wire.hasEdgeRouterConnection = connected;
      wire.edgeRouterConnectionStatus = connected ? 'online' : 'offline';
    },
  };
}

/** Fields both router kinds share: offline (edge routers: see presence), no unverified certificate,
 * enrollment while unverified. */
function routerState(wire: Wire, record: Entity): void {
  wire.isOnline = false;
  wire.fingerprint ??= '';
  wire.unverifiedCertPem = null;
  wire.unverifiedFingerprint = null;
  wire.interfaces = [];
  for (const field of ENROLLMENT_FIELDS) wire[field] = record.isVerified === true ? null : (record[field] ?? null);
}
