// The CLI's wait for a server-side change (an integrity run finishing, a drained member handing
// its shards over): read, test, pause, until done or out of time. Knows nothing of what it reads.

/** Time between two reads, in ms. */
const POLL_INTERVAL_MS = 250;

/** Reads until `done` holds of a read or `timeoutMs` has passed; answers the last read and
 * whether it was done (the caller words the timeout). */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<{ value: T; done: boolean }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, done: true };
    if (Date.now() >= deadline) return { value, done: false };
    await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
  }
}
