// External JWT login (`POST /authenticate?method=ext-jwt`, token in `Authorization: Bearer`):
// finds the signer by the token's issuer, verifies the token, finds the identity by the signer's
// claim, then lets the identity's actor check its state and auth policy and create the session.

import type { Context } from 'koa';
import { decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { extJwtError } from '../../domain/ext-jwt-failures.js';
import { resourceOf } from '../../domain/registry.js';
import { jsonBody } from '../middleware/body.js';
import type { NodeClient } from '../node-client.js';
import { verifyExtJwt, type VerifyingSigner } from './ext-jwt-keys.js';
import { sessionInfo } from './password-login.js';

interface Signer extends VerifyingSigner {
  enabled: boolean;
  claimsProperty: string;
  useExternalId: boolean;
}

export async function loginWithExtJwt(ctx: Context, node: NodeClient): Promise<string> {
  const token = bearerToken(ctx);
  const { header, claims } = decodeUnverified(token);
  if (!header.kid) throw extJwtError('MISSING_KID');
  const signer = typeof claims.iss === 'string' ? await node.query<Signer | null>({ op: 'extJwtSigner', issuer: claims.iss }) : null;
  if (!signer) throw extJwtError('UNKNOWN_ISSUER', `issuer ${JSON.stringify(claims.iss ?? null)}`);
  if (!signer.enabled) throw extJwtError('SIGNER_DISABLED');
  const verified = await verifyExtJwt(token, header, signer);
  const value = claimAt(verified, signer.claimsProperty);
  if (value === undefined) throw extJwtError('NO_MATCHING_IDENTITY', `claim ${pointerOf(signer.claimsProperty)} is missing or not a string`);
  const found = await node.query<{ identityId: string } | null>({ op: 'extJwtIdentity', value, useExternalId: signer.useExternalId });
  if (!found) throw extJwtError('NO_MATCHING_IDENTITY', `no identity with ${signer.useExternalId ? 'externalId' : 'id'} ${JSON.stringify(value)}`);
  const body = ctx.request.length ? jsonBody(ctx) : undefined;
  const result = await node.command<{ token: string }>(resourceOf('identities'), 'loginExtJwt', found.identityId, {
    signerId: signer.id,
    ...sessionInfo(ctx, body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined),
  });
  return result.token;
}

function bearerToken(ctx: Context): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
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

/** `claimsProperty` is a JSON pointer; a leading `/` is added when missing (upstream). */
function pointerOf(property: string): string {
  return property.startsWith('/') ? property : `/${property}`;
}

function claimAt(claims: JWTPayload, property: string): string | undefined {
  let node: unknown = claims;
  for (const raw of pointerOf(property).slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'string' && node !== '' ? node : undefined;
}
