// Entity ids in the upstream shape: short random strings over 0-9a-zA-Z plus `.` and `-`.

import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';

/** A new 10-character id (60 random bits); the first character is alphanumeric. */
export function newId(): string {
  const bytes = randomBytes(10);
  let id = ALPHABET[bytes[0] % 62];
  for (let i = 1; i < 10; i++) id += ALPHABET[bytes[i] & 63];
  return id;
}
