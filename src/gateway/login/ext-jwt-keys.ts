// Verifies an external JWT against its signer (BEHAVIOR.md §4.7): the signer's certificate
// (kid = the signer's kid, else the certificate fingerprint) or its JWKS endpoint (keys by kid,
// re-fetched on an unknown kid). Keys are cached per signer version and per JWKS URL.

import { createRemoteJWKSet, errors, importX509, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { extJwtError } from '../../domain/ext-jwt-failures.js';
import { isAllowedJwksUrl } from '../../domain/ext-jwt-signer-rules.js';

/** What a verification needs of a signer (the query handler's `extJwtSigner` answer). */
export interface VerifyingSigner {
  id: string;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  fingerprint: string | null;
  audience: string;
  updatedAt: string;
}

/** Asymmetric algorithms only: a signer never shares a secret with the controller. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const CACHE_LIMIT = 256;

type SignerKey = Awaited<ReturnType<typeof importX509>>;

const certKeys = new Map<string, Promise<SignerKey>>();
const jwksSets = new Map<string, JWTVerifyGetKey>();

/** Verifies signature, `exp`, `nbf` and `aud`; throws 401 INVALID_AUTH naming the reason. */
export async function verifyExtJwt(token: string, header: { alg?: string; kid?: string }, signer: VerifyingSigner): Promise<JWTPayload> {
  const alg = String(header.alg ?? '');
  if (!ALGORITHMS.includes(alg)) throw extJwtError('MALFORMED_TOKEN', `algorithm ${alg || '(none)'} is not accepted`);
  const key = signer.certPem !== null ? await certKey(signer, String(header.kid), alg) : jwksKey(signer);
  try {
    const { payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], { audience: signer.audience, algorithms: ALGORITHMS });
    return payload;
  } catch (err) {
    throw classify(err, signer.certPem === null);
  }
}

async function certKey(signer: VerifyingSigner, kid: string, alg: string): Promise<SignerKey> {
  if (kid !== (signer.kid ?? signer.fingerprint)) throw extJwtError('UNKNOWN_KID', `kid ${kid}`);
  const cacheKey = `${signer.id}\0${signer.updatedAt}\0${alg}`;
  let key = certKeys.get(cacheKey);
  if (!key) {
    if (certKeys.size >= CACHE_LIMIT) certKeys.clear();
    key = importX509(signer.certPem!, alg);
    key.catch(() => certKeys.delete(cacheKey));
    certKeys.set(cacheKey, key);
  }
  try {
    return await key;
  } catch (err) {
    throw extJwtError('BAD_SIGNATURE', `the signer certificate does not fit algorithm ${alg}: ${(err as Error).message}`);
  }
}

function jwksKey(signer: VerifyingSigner): JWTVerifyGetKey {
  const endpoint = String(signer.jwksEndpoint);
  let set = jwksSets.get(endpoint);
  if (!set) {
    const url = new URL(endpoint);
    if (!isAllowedJwksUrl(url)) throw extJwtError('JWKS_UNAVAILABLE', 'the JWKS endpoint is not https');
    if (jwksSets.size >= CACHE_LIMIT) jwksSets.clear();
    set = createRemoteJWKSet(url, { timeoutDuration: 5_000 });
    jwksSets.set(endpoint, set);
  }
  return set;
}

/** jose's errors, mapped to the reasons an operator can act on. */
function classify(err: unknown, viaJwks: boolean): Error {
  if (err instanceof errors.JWSSignatureVerificationFailed) return extJwtError('BAD_SIGNATURE');
  if (err instanceof errors.JWTExpired) return extJwtError('EXPIRED');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return extJwtError('BAD_AUDIENCE');
    if (err.claim === 'nbf') return extJwtError('NOT_YET_VALID');
    return extJwtError('INVALID_CLAIMS', err.message);
  }
  if (err instanceof errors.JWKSNoMatchingKey) return extJwtError('UNKNOWN_KID');
  const malformed = [errors.JWSInvalid, errors.JWTInvalid, errors.JOSEAlgNotAllowed, errors.JOSENotSupported];
  if (malformed.some((type) => err instanceof type)) return extJwtError('MALFORMED_TOKEN', (err as Error).message);
  if (err instanceof Error && 'apiCause' in err) return err;
  const detail = err instanceof Error ? err.message : String(err);
  // What remains is the JWKS fetch (network, status, timeout, bad document) or an unusable key.
  return viaJwks ? extJwtError('JWKS_UNAVAILABLE', detail) : extJwtError('BAD_SIGNATURE', detail);
}
