// Errors a Log reports when it cannot append or read: whether anything was appended is part of
// the error's meaning, so callers can answer "unavailable, retry" or "outcome unknown" truthfully.

/** Nothing was appended (or read): the log is closed, NATS is not connected, or JetStream refused
 * or did not answer a request that changes nothing. Safe to retry. */
export class LogUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LogUnavailableError';
  }
}

/** A publish was sent but never acknowledged before the deadline: the entry may or may not be in
 * the log. Retrying with the same msgId within the duplicate window is safe. */
export class LogOutcomeUnknownError extends Error {
  constructor(
    readonly msgId: string,
    options?: ErrorOptions,
  ) {
    super(`the outcome of the append is unknown (msgId ${msgId}): it was sent to JetStream but never acknowledged`, options);
    this.name = 'LogOutcomeUnknownError';
  }
}
