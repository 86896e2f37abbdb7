// When the HTTP request being handled reached this node (epoch ms), carried with
// AsyncLocalStorage from the gateway's first middleware through everything the request awaits.
// NodeClient counts a command's answer bound from it, so that a wait before the command (the
// read barrier) does not push the answer later. Commands sent outside a request (gRPC streams,
// jobs) count from their own start.

import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<number>();

/** Runs `fn` (and everything it awaits) as part of a request that arrived at `at`. */
export function withArrival<T>(at: number, fn: () => T): T {
  return storage.run(at, fn);
}

/** When the request being handled arrived; undefined outside a request. */
export function requestArrival(): number | undefined {
  return storage.getStore();
}
