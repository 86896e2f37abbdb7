// Which edge routers have a live posture stream to this node, and which identities those
// routers reported (they are connected through a router). Node-local and volatile: read by the
// presenters (`isOnline`, `hasEdgeRouterConnection`), written by the gRPC posture service.

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
        for (const identityId of seen) decrement(this.identityCounts, identityId);
      },
    };
  }

  isOnline(routerId: string): boolean {
    return this.routers.has(routerId);
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
