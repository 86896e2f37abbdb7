// What a partially authenticated API session (a TOTP code or a required ext-jwt token still
// owed) may reach: upstream's short allow-list, the same on both APIs. Anything else treats the
// caller as unauthenticated (401).

/** `METHOD /path` below the API prefix, e.g. `POST /authenticate/mfa`. */
const ALLOWED_WHILE_PARTIAL = new Set([
  'POST /authenticate/mfa',
  'GET /current-api-session',
  'DELETE /current-api-session',
  'GET /current-identity/mfa',
  'POST /current-identity/mfa',
  'POST /current-identity/mfa/verify',
  'GET /current-identity/mfa/qr-code',
]);

const API_PREFIX = /^\/edge\/(?:management|client)\/v1(?=\/|$)/;

/** True when a partially authenticated session may make this request. */
export function isAllowedWhilePartial(method: string, path: string): boolean {
  const below = path.replace(API_PREFIX, '').replace(/\/+$/, '') || '/';
  return ALLOWED_WHILE_PARTIAL.has(`${method.toUpperCase()} ${below}`);
}
