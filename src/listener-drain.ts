// How the HTTPS listener stops without dropping a request it took: once winding down, every answer
// closes its connection (keep-alive clients reconnect elsewhere); closing stops accepting, closes
// idle connections and lets requests in flight finish, cutting what is left after a bound.

import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Server } from 'node:https';

/** How long requests in flight may take to finish once the listener is closed (ms): longer than
 * the answer bound of a write (5 s, docs/architecture.md), shorter than a pod's termination grace. */
export const DRAIN_TIMEOUT_MS = 10_000;

export class ListenerDrain {
  private windingDown = false;
  private inFlight = 0;
  private closing?: Promise<{ cut: number }>;

  constructor(private readonly server: Server) {}

  /** Wraps the node's request listener: counts requests in flight and, once winding down,
   * answers with `Connection: close`. */
  listener(handle: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      this.inFlight++;
      res.once('close', () => this.inFlight--);
      if (this.windingDown) res.setHeader('connection', 'close');
      handle(req, res);
    };
  }

  /** From now on every answer closes its connection (the listener still accepts). */
  windDown(): void {
    this.windingDown = true;
  }

  /** Requests being answered now. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /**
   * Stops accepting connections, closes the idle ones, and resolves once every connection has
   * ended, or after `timeoutMs`, when the connections left are cut; `cut` counts the requests
   * that were still being answered then.
   */
  close(timeoutMs = DRAIN_TIMEOUT_MS): Promise<{ cut: number }> {
    this.windDown();
    this.closing ??= new Promise((done) => {
      const timer = setTimeout(() => {
        const cut = this.inFlight;
        this.server.closeAllConnections();
        done({ cut });
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
