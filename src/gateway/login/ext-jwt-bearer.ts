// The bearer token of a request, verified against its issuer's external JWT signer (BEHAVIOR.md
// §4.7), and the identity claim it carries: shared by ext-jwt login and the secondary ext-jwt
// check. Every refusal is 401 INVALID_AUTH naming its reason.

import type { Context } from 'koa';
import { decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { extJwtError } from '../../domain/ext-jwt-failures.js';
import { pointerOf, stringClaimAt } from '../../domain/jwt-claims.js';
import type { NodeClient } from '../node-client.js';
import { verifyExtJwt, type VerifyingSigner } from './ext-jwt-keys.js';

/** The query handler's `extJwtSigner` answer. */
export interface BearerSigner extends VerifyingSigner {
  enabled: boolean;
  claimsProperty: string;
  useExternalId: boolean;
}

/** A verified token: its signer, the value of the signer's identity claim, and all its claims. */
export interface VerifiedBearer {
  signer: BearerSigner;
  value: string;
  claims: JWTPayload;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** True when the request has an `Authorization: Bearer` header. */
export function hasBearer(ctx: Context): boolean {
  return BEARER.test(ctx.get('authorization'));
}

/** Finds the signer by the token's issuer, verifies the token and reads the identity claim. */
export async function verifyBearer(ctx: Context, node: NodeClient): Promise<VerifiedBearer> {
  const token = bearerToken(ctx);
  const { header, claims } = decodeUnverified(token);
  if (!header.kid) throw extJwtError('MISSING_KID');
  const signer = typeof claims.iss === 'string' ? await node.query({ op: 'extJwtSigner', issuer: claims.iss }) : null;
  if (!signer) throw extJwtError('UNKNOWN_ISSUER', `issuer ${JSON.stringify(claims.iss ?? null)}`);
  if (!signer.enabled) throw extJwtError('SIGNER_DISABLED');
  const verified = await verifyExtJwt(token, header, signer);
  const value = stringClaimAt(verified, signer.claimsProperty);
  if (value === undefined) throw extJwtError('NO_MATCHING_IDENTITY', `claim ${pointerOf(signer.claimsProperty)} is missing or not a string`);
  return { signer, value, claims: verified };
}

function bearerToken(ctx: Context): string {
  const match = BEARER.exec(ctx.get('authorization'));
  if (!match) throw extJwtError('MISSING_TOKEN');
  return match[1]!;
}

function decodeUnverified(token: string): { header: { alg?: string; kid?: string }; claims: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch (err) {
    throw extJwtError('MALFORMED_TOKEN', (err as Error).message);
  }
}
