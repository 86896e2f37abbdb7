// Presentation of edge routers and transit routers: the connection-state fields upstream adds to
// the stored record. No router connects yet, so every router is offline with empty state.

import type { Presenter, Wire } from './present.js';
import type { Entity } from '../../domain/commands.js';

const ENROLLMENT_FIELDS = ['enrollmentToken', 'enrollmentJwt', 'enrollmentCreatedAt', 'enrollmentExpiresAt'] as const;

/** Registers the edge-router and router decorators on the presenter. */
export function registerRouterDecorators(presenter: Presenter): void {
  presenter.decorate('edge-routers', async (wire, record) => {
    routerState(wire, record);
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
  });
  presenter.decorate('routers', async (wire, record) => routerState(wire, record));
}

/** Fields both router kinds share: offline, no unverified certificate, enrollment while unverified. */
function routerState(wire: Wire, record: Entity): void {
  wire.isOnline = false;
  wire.fingerprint ??= null;
  wire.unverifiedCertPem = null;
  wire.unverifiedFingerprint = null;
  wire.interfaces = [];
  for (const field of ENROLLMENT_FIELDS) wire[field] = record.isVerified === true ? null : (record[field] ?? null);
}
