// Password rules of an auth policy's updb section. Weft enforces them whenever a updb password
// is set (upstream stores but ignores them). Pure.

import { fieldError } from '../errors.js';

export interface UpdbRules {
  minPasswordLength?: number;
  requireMixedCase?: boolean;
  requireNumberChar?: boolean;
  requireSpecialChar?: boolean;
}

/** Throws COULD_NOT_VALIDATE on `password` naming the first rule the password breaks. */
export function checkPasswordRules(password: string, rules: UpdbRules): void {
  const fail = (reason: string) => {
    throw fieldError('password', '******', reason);
  };
  const min = Math.max(5, rules.minPasswordLength ?? 5);
  if ([...password].length < min) fail(`password must be at least ${min} characters long`);
  if (rules.requireMixedCase && !(/\p{Lu}/u.test(password) && /\p{Ll}/u.test(password))) {
    fail('password must contain both upper and lower case letters');
  }
  if (rules.requireNumberChar && !/\p{Nd}/u.test(password)) fail('password must contain a number');
  if (rules.requireSpecialChar && !/[^\p{L}\p{Nd}]/u.test(password)) fail('password must contain a special character');
}
