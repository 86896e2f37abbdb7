// The `controllers` query: the running nodes as upstream's controllerDetail list, from this
// node's registry (heartbeats). Reads no replica.

import type { KnownNode, NodeDirectory } from '../protocol/v1/node-announcements.js';
import type { Wire } from './present.js';

const API_PATHS = { 'edge-client': '/edge/client/v1', 'edge-management': '/edge/management/v1' } as const;

/** `{data, meta}` of GET /controllers: every known node, this one first. */
export function listControllers(registry: NodeDirectory | undefined): { data: Wire[]; meta: Record<string, unknown> } {
  const data = (registry?.list() ?? []).map(presentController);
  return { data, meta: { pagination: { limit: data.length, offset: 0, totalCount: data.length } } };
}

export function presentController(node: KnownNode): Wire {
  const apiAddresses: Record<string, { url: string; version: string }[]> = {};
  for (const [api, path] of Object.entries(API_PATHS)) apiAddresses[api] = [{ url: `${node.baseUrl}${path}`, version: 'v1' }];
  return {
    id: node.id,
    name: node.id,
    createdAt: node.startedAt,
    updatedAt: node.startedAt,
    tags: {},
    _links: { self: { href: `./controllers/${encodeURIComponent(node.id)}` } },
    apiAddresses,
    certPem: node.certPem,
    ctrlAddress: node.ctrlAddress,
    fingerprint: node.fingerprint,
    isOnline: node.isOnline,
    isPreferredLeader: false,
    lastJoinedAt: node.startedAt,
  };
}
