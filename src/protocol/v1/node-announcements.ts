// The node events (`weft.v1.events.nodes.heartbeat`, and the cluster's member records): what a
// node announces about itself, and the directory of known nodes built from the announcements.

/** What a node announces about itself. Times are ISO-8601 UTC. */
export interface NodeAnnouncement {
  id: string;
  /** https://host:port clients use to reach the node's APIs. */
  baseUrl: string;
  /** Where routers reach the node (`tls:host:port` of its gRPC server); null until known. */
  ctrlAddress: string | null;
  /** The node's server certificate (PEM) and its fingerprint (hex SHA-1 of the DER). */
  certPem: string;
  fingerprint: string;
  /** When this node process started (joined the cluster). */
  startedAt: string;
}

/** A known node: its last announcement and when it was last heard from (epoch ms). */
export interface KnownNode extends NodeAnnouncement {
  lastSeenMs: number;
  isOnline: boolean;
  isLocal: boolean;
}

/** Who the controllers are, as GET /controllers and enrollment JWTs need it. */
export interface NodeDirectory {
  /** Every known node, this one first. */
  list(): KnownNode[];
  /** The API base URLs of the online nodes, this one first. */
  onlineUrls(): string[];
}
