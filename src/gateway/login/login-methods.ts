// The `/authenticate?method=...` table: each method turns a request into an API-session token
// by asking the node (queries to find the identity, a command to its actor to log in).

import type { Context } from 'koa';
import type { NodeClient } from '../node-client.js';
import { loginWithCert } from './cert-login.js';
import { loginWithExtJwt } from './ext-jwt-login.js';
import { loginWithPassword } from './password-login.js';

/** Logs the request in and returns the new API session's token (or throws 401 INVALID_AUTH). */
export type LoginMethod = (ctx: Context, node: NodeClient) => Promise<string>;

export const LOGIN_METHODS: Record<string, LoginMethod> = {
  password: loginWithPassword,
  cert: loginWithCert,
  'ext-jwt': loginWithExtJwt,
};

/** Methods OpenZiti defines; one missing from LOGIN_METHODS is known but not enabled here. */
export const KNOWN_METHODS = ['password', 'cert', 'ext-jwt'];
