// Argon2id password hashing and verification (OpenZiti's parameters). Runs inside pool workers,
// synchronously on the worker's own thread, so all of a hash's CPU is that thread's (and takes
// the pool's scheduling priority); passwords and hashes are never logged.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Algorithm, hashRawSync } from '@node-rs/argon2';
import type { HashPasswordResult } from './tasks.js';

const HASH_LENGTH = 32;
const SALT_LENGTH = 10;
const MIN_SALT_LENGTH = 8;

function argon2id(password: string, salt: Buffer): Buffer {
  return hashRawSync(password, {
    algorithm: Algorithm.Argon2id,
    salt,
    timeCost: 1,
    memoryCost: 3072,
    parallelism: 4,
    outputLen: HASH_LENGTH,
  });
}

/** Hashes a password with a fresh 10-byte salt; both come back base64 (std). */
export function hashPassword(password: string): HashPasswordResult {
  const salt = randomBytes(SALT_LENGTH);
  return { hash: argon2id(password, salt).toString('base64'), salt: salt.toString('base64') };
}

/** Recomputes the hash with the stored salt and compares in constant time. Malformed stored
 * values (wrong hash length, too-short salt) verify as false. */
export function verifyPassword(password: string, hash: string, salt: string): boolean {
  const expected = Buffer.from(hash, 'base64');
  const saltBytes = Buffer.from(salt, 'base64');
  if (expected.length !== HASH_LENGTH || saltBytes.length < MIN_SALT_LENGTH) return false;
  return timingSafeEqual(argon2id(password, saltBytes), expected);
}
