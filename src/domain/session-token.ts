// API-session tokens as stored: only their SHA-256 is kept, so a token is looked up by its hash.
// Pure: used by the session factory (write side) and the session reads (query side).

import { createHash } from 'node:crypto';

/** API-session tokens are looked up by their SHA-256; the token itself is never stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
