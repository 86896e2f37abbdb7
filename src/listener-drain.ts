// How the HTTPS listener stops without dropping a request it took: once winding down, every answer
// closes its connection (keep-alive clients reconnect elsewhere); closing stops accepting, closes
// idle connections and lets requests in flight finish, cutting what is left after a bound.
// Nothing of it runs per request before the node winds down.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';

/** How long requests in flight may take to finish once the listener is closed (ms): longer than
 * the answer bound of a write (5 s, docs/architecture.md), shorter than a pod's termination grace. */
export const DRAIN_TIMEOUT_MS = 10_000;

export class ListenerDrain {
  private windingDown = false;
  private closing?: Promise<{ cut: number }>;

  constructor(private readonly server: Server) {}

  /** From now on every answer closes its connection (the listener still accepts): a request
   * listener ahead of the node's own sets `Connection: close`. */
  windDown(): void {
    if (this.windingDown) return;
    this.windingDown = true;
    this.server.prependListener('request', closeAfterAnswer);
  }

  /** Connections open now (idle keep-alive ones and those in a TLS handshake included). */
  openConnections(): Promise<number> {
    return new Promise((resolve) => this.server.getConnections((err, count) => resolve(err ? 0 : count)));
  }

  /**
   * Stops accepting connections, closes the idle ones, and resolves once every connection has
   * ended, or after `timeoutMs`, when the connections left are cut; `cut` counts them (each was
   * still answering a request, or had one on its way: the idle ones were closed at the start).
   */
  close(timeoutMs = DRAIN_TIMEOUT_MS): Promise<{ cut: number }> {
    this.windDown();
    this.closing ??= new Promise((done) => {
      const timer = setTimeout(() => {
        void this.openConnections().then((cut) => {
          this.server.closeAllConnections();
          done({ cut });
        });
      }, timeoutMs);
      this.server.close(() => {
        clearTimeout(timer);
        done({ cut: 0 });
      });
      this.server.closeIdleConnections();
    });
    return this.closing;
  }
}

function closeAfterAnswer(_req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
}
