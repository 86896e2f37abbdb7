// Entity ids in the upstream shape: short random strings over 0-9a-zA-Z plus `.` and `-`.

import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-';

/** Random bytes drawn from the CSPRNG in blocks: one call per 400 ids instead of one per id. */
const pool = Buffer.alloc(4_000);
let used = pool.length;

/** A new 10-character id (60 random bits); the first character is alphanumeric. */
export function newId(): string {
  if (used + 10 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let id = ALPHABET[pool[used] % 62];
  for (let i = 1; i < 10; i++) id += ALPHABET[pool[used + i] & 63];
  used += 10;
  return id;
}
