// The error catalogue: OpenZiti's codes, statuses and fixed messages, and the wire form
// errors take on the bus ({code, message, cause}). Knows nothing about HTTP frameworks.

/** A field-level validation problem, carried as an error's cause. */
export interface FieldCause {
  field: string;
  value: unknown;
  reason: string;
}

/** Any cause: a field error, a nested API error in wire form, or free data. */
export type ErrorCause = FieldCause | WireError | Record<string, unknown>;

/** How an error travels across the bus and back: rebuilt by code lookup. */
export interface WireError {
  code: string;
  message: string;
  cause?: ErrorCause;
  status?: number;
}

/** The cause code of a SERVICE_UNAVAILABLE whose request reached nobody (no node serves its
 * subject now): nothing was delivered, so it is safe to ask again. */
export const NO_RESPONDERS = 'NO_RESPONDERS';

/** The cause code of a SERVICE_UNAVAILABLE whose write is certainly not in the log (its outcome
 * was looked up after it could no longer be stored): safe to send again. */
export const NOT_STORED = 'NOT_STORED';

interface CatalogueEntry {
  status: number;
  message: string;
}

const CATALOGUE: Record<string, CatalogueEntry> = {
  UNHANDLED: { status: 500, message: 'An unhandled error occurred' },
  NOT_FOUND: { status: 404, message: 'The resource requested was not found or is no longer available' },
  COULD_NOT_VALIDATE: {
    status: 400,
    message: 'The supplied request contains an invalid document or no valid accept content were available, see cause',
  },
  COULD_NOT_PARSE_BODY: { status: 400, message: 'The body of the request could not be parsed' },
  UNAUTHORIZED: {
    status: 401,
    message: 'The request could not be completed. The session is not authorized or the credentials are invalid',
  },
  FORBIDDEN: { status: 403, message: 'The request is not allowed for this session' },
  INVALID_AUTH: { status: 401, message: 'The authentication request failed' },
  INVALID_AUTH_METHOD: { status: 400, message: 'The supplied authentication method is not valid' },
  INVALID_FILTER: { status: 400, message: 'The filter query supplied is invalid' },
  INVALID_PAGINATION: { status: 400, message: 'The pagination properties provided are invalid' },
  INVALID_SORT_IDENTIFIER: { status: 400, message: 'The sort order supplied is invalid' },
  ENTITY_CAN_NOT_BE_DELETED: { status: 400, message: 'The entity requested for delete can not be deleted' },
  ENTITY_CAN_NOT_BE_UPDATED: { status: 400, message: 'The entity requested for update can not be updated' },
  CAN_NOT_DELETE_REFERENCED_ENTITY: {
    status: 409,
    message: 'The entity requested for delete can not be deleted because it is referenced by other entities',
  },
  CONFLICT_CANNOT_MODIFY_REFERENCED: {
    status: 409,
    message: 'The entity cannot be modified or deleted while other entities reference it',
  },
  /** Weft's own: apply refused a write built from a read of an entity that has changed since
   * (an op's `expect`); the writer prepares it again, so a client sees it only after retries. */
  STALE_WRITE: { status: 409, message: 'the entity changed while this write was prepared; retry' },
  /** Weft's own: a bus message the receiver cannot read (a field missing or of the wrong
   * type); the cause names the field. */
  INVALID_MESSAGE: { status: 400, message: 'The message is malformed, see cause' },
  /** Weft's own: a bus message whose op its receiver does not serve (e.g. a newer node's). */
  UNKNOWN_OPERATION: { status: 501, message: 'The operation is not implemented by the receiver, see cause' },
  RATE_LIMITED: { status: 429, message: 'The requested operation is rate limited, try again later' },
  SERVER_TOO_MANY_REQUESTS: {
    status: 429,
    message: 'Too many requests to alter state have been issued. Please slow your request rate or try again later.',
  },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not available, try again later' },
  CLUSTER_NO_LEADER: { status: 503, message: 'The cluster has no leader, try again later' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The method requested is not allowed' },
  REQUEST_ENTITY_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  NOT_ACCEPTABLE: { status: 406, message: 'The requested content type is not acceptable' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The content type of the request body is not supported' },
  TIMEOUT: { status: 504, message: 'The request timed out inside the controller' },
  MFA_INVALID_TOKEN: { status: 400, message: 'The token provided was invalid' },
  MFA_EXISTS: { status: 409, message: 'An MFA record already exists' },
  MFA_NOT_ENROLLED: { status: 409, message: 'The identity is not enrolled in MFA' },
  INVALID_POSTURE: { status: 409, message: 'Failed to pass posture checks' },
  ENROLLMENT_EXISTS: { status: 409, message: 'An enrollment for the specified method already exists' },
  ENROLLMENT_EXPIRED: { status: 400, message: 'The enrollment token has expired' },
  INVALID_ENROLLMENT_TOKEN: { status: 400, message: 'The supplied token is not valid' },
  INVALID_ENROLLMENT_NOT_ALLOWED: { status: 400, message: 'The token issuer or the authentication policy does not allow this enrollment' },
  ENROLLMENT_IDENTITY_ALREADY_ENROLLED: { status: 409, message: 'An identity with the external id of the token already exists' },
  CA_ALREADY_VERIFIED: { status: 409, message: 'The certificate authority has already been verified' },
  INVALID_COMMON_NAME: { status: 400, message: 'The common name of the certificate is invalid' },
  CERTIFICATE_FAILED_VALIDATION: { status: 400, message: 'The supplied certificate failed validation' },
  CERT_IN_USE: { status: 409, message: 'The certificate supplied is already associated with another identity' },
  MAX_AUTHENTICATOR_METHODS_REACHED: {
    status: 409,
    message: 'The identity already has an authenticator of this method; only one is allowed',
  },
  CAN_NOT_UPDATE_AUTHENTICATOR: { status: 409, message: 'The authenticator cannot be updated' },
  COULD_NOT_PROCESS_CSR: { status: 400, message: 'The supplied csr could not be processed' },
  MISSING_OR_INVALID_CSR: { status: 400, message: 'The supplied enrollment request is missing or contains an invalid CSR' },
  INVALID_ENROLL_METHOD: { status: 400, message: 'The supplied enrollment method is not valid' },
  ENROLLMENT_CA_NOT_VALID: { status: 400, message: 'The CA tied to the supplied token is no longer valid' },
  ENROLLMENT_NO_VALID_CAS: { status: 400, message: 'No CAs are valid for this request' },
  CERT_FAILED_VALIDATION: { status: 400, message: 'certificate failed to validate against CA' },
  MISSING_CERT_CLAIM: { status: 400, message: 'The certificate is expected to contain an externalId, which was not found' },
  INVALID_CLIENT_CERT: { status: 400, message: 'The provided client certificate is invalid' },
  EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID: {
    status: 400,
    message: "The edge router CSR enrollment must have a common name that matches the edge router's id",
  },
  NO_EDGE_ROUTERS_AVAILABLE: { status: 400, message: 'No edge routers are assigned and online to handle the requested connection' },
};

/** An API error with a stable code; the HTTP status and message come from the catalogue. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly apiCause?: ErrorCause;

  constructor(code: string, cause?: ErrorCause, message?: string) {
    const entry = CATALOGUE[code] ?? CATALOGUE.UNHANDLED;
    super(message ?? entry.message);
    this.name = 'ApiError';
    this.code = CATALOGUE[code] ? code : 'UNHANDLED';
    this.status = entry.status;
    this.apiCause = cause;
  }

  toWire(): WireError {
    const wire: WireError = { code: this.code, message: this.message };
    if (this.apiCause !== undefined) wire.cause = this.apiCause;
    return wire;
  }
}

/** 400 COULD_NOT_VALIDATE with a field cause. */
export function fieldError(field: string, value: unknown, reason: string): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { field, value, reason });
}

export function notFound(): ApiError {
  return new ApiError('NOT_FOUND');
}

export function unauthorized(): ApiError {
  return new ApiError('UNAUTHORIZED');
}

/** 400 INVALID_FILTER whose cause carries the parser's detail, as upstream does. */
export function invalidFilter(detail: string): ApiError {
  return new ApiError('INVALID_FILTER', { code: 'UNHANDLED', message: detail });
}

/** Turns anything thrown into an ApiError; unknown errors become UNHANDLED with their text. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const text = err instanceof Error ? err.message : String(err);
  return new ApiError('UNHANDLED', { code: 'UNHANDLED', message: text });
}

/** Rebuilds an ApiError from its wire form (the bus carries only data). */
export function fromWire(wire: WireError): ApiError {
  return new ApiError(wire.code, wire.cause, wire.message);
}

export function statusOf(code: string): number {
  return (CATALOGUE[code] ?? CATALOGUE.UNHANDLED).status;
}
