// The error every ZitiQL failure raises: parse, unknown-symbol, set-misuse, type and sort
// errors. The message is the detail text the API puts into the INVALID_FILTER cause.

/** A filter, sort or subquery that cannot be parsed or validated; message is upstream-style. */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}
