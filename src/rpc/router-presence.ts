// Which edge routers have a live posture stream to this node (and, in a cluster, to the other
// live nodes), and which identities those routers reported (they are connected through a
// router). Volatile: read by the presenters (`isOnline`, `hasEdgeRouterConnection`), written
// by the gRPC posture service and the cluster's presence exchange.

/** One open router stream. */
export interface RouterConnection {
  readonly routerId: string;
  /** Records that the router reported this identity (it is connected through the router). */
  noteIdentity(identityId: string): void;
  /** Identities this connection reported. */
  identities(): ReadonlySet<string>;
  close(): void;
}

export class RouterPresence {
  private readonly routers = new Map<string, number>();
  /** Cluster mode: the routers connected to each other node, as they last reported them. */
  private readonly remote = new Map<string, ReadonlySet<string>>();
  private readonly listeners = new Set<() => void>();
  private readonly identityCounts = new Map<string, number>();
  /** Bumped by every change, so that cached presentations can tell they are out of date. */
  private changes = 0;

  /** A number that changes whenever presence does. */
  get version(): number {
    return this.changes;
  }

  /** Registers an open stream of `routerId`; the router is online until every stream closes. */
  open(routerId: string): RouterConnection {
    this.routers.set(routerId, (this.routers.get(routerId) ?? 0) + 1);
    this.changes++;
    this.notify();
    const seen = new Set<string>();
    let closed = false;
    return {
      routerId,
      noteIdentity: (identityId) => {
        if (closed || seen.has(identityId)) return;
        seen.add(identityId);
        this.changes++;
        this.identityCounts.set(identityId, (this.identityCounts.get(identityId) ?? 0) + 1);
      },
      identities: () => seen,
      close: () => {
        if (closed) return;
        closed = true;
        this.changes++;
        decrement(this.routers, routerId);
        this.notify();
        for (const identityId of seen) decrement(this.identityCounts, identityId);
      },
    };
  }

  /** True while the router has a stream to this node or, in a cluster, to any live node. */
  isOnline(routerId: string): boolean {
    if (this.routers.has(routerId)) return true;
    for (const routers of this.remote.values()) if (routers.has(routerId)) return true;
    return false;
  }

  /** Cluster mode: what another node reports as connected to it (an empty set forgets it). */
  setRemote(nodeId: string, routerIds: readonly string[]): void {
    const before = this.remote.get(nodeId);
    const next = new Set(routerIds);
    if (before && before.size === next.size && [...next].every((id) => before.has(id))) return;
    if (next.size === 0) this.remote.delete(nodeId);
    else this.remote.set(nodeId, next);
    this.changes++;
  }

  /** Nodes whose report is kept (cluster mode). */
  remoteNodes(): string[] {
    return [...this.remote.keys()];
  }

  /** Hears every change of this node's own connected routers (cluster presence reports). */
  onLocalChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  /** True while some connected router has reported the identity. */
  hasEdgeRouterConnection(identityId: string): boolean {
    return this.identityCounts.has(identityId);
  }

  onlineRouterIds(): string[] {
    return [...this.routers.keys()];
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
