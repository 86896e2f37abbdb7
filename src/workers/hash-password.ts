// Argon2id password hashing and verification (OpenZiti's parameters). Runs inside pool workers;
// passwords and hashes are never logged.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import argon2 from 'argon2';
import type { HashPasswordResult } from './tasks.js';

const HASH_LENGTH = 32;
const SALT_LENGTH = 10;
const MIN_SALT_LENGTH = 8;

async function argon2id(password: string, salt: Buffer): Promise<Buffer> {
  return argon2.hash(password, {
    type: argon2.argon2id,
    raw: true,
    salt,
    timeCost: 1,
    memoryCost: 3072,
    parallelism: 4,
    hashLength: HASH_LENGTH,
  });
}

/** Hashes a password with a fresh 10-byte salt; both come back base64 (std). */
export async function hashPassword(password: string): Promise<HashPasswordResult> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await argon2id(password, salt);
  return { hash: hash.toString('base64'), salt: salt.toString('base64') };
}

/** Recomputes the hash with the stored salt and compares in constant time. Malformed stored
 * values (wrong hash length, too-short salt) verify as false. */
export async function verifyPassword(password: string, hash: string, salt: string): Promise<boolean> {
  const expected = Buffer.from(hash, 'base64');
  const saltBytes = Buffer.from(salt, 'base64');
  if (expected.length !== HASH_LENGTH || saltBytes.length < MIN_SALT_LENGTH) return false;
  const actual = await argon2id(password, saltBytes);
  return timingSafeEqual(actual, expected);
}
