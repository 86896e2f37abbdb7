// Enrollment JWTs in the upstream shape (BEHAVIOR.md §5.1): signed with the node's signing key,
// header kid = hex SHA-1 of the signing cert. Does no storage; callers decide token and expiry.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { certFingerprint } from './ca-certificates.js';

/** The signing material: the certificate (for kid) and its private key, both PEM. */
export interface JwtSigner {
  certPem: string;
  keyPem: string;
}

/** The claims of one enrollment. */
export interface EnrollmentClaims {
  /** `iss`: the controller's API base URL, without a trailing slash. */
  issuer: string;
  /** `sub`: the enrolling entity's id (identity or router). */
  subject: string;
  /** `jti`: the enrollment token (a UUID). */
  token: string;
  /** `em`: ott | ottca | updb | erott | trott. */
  method: string;
  expiresAt: Date;
  /** `ctrls`: the controllers the enrolled entity may reach. */
  controllers: string[];
}

interface SigningKey {
  alg: string;
  kid: string;
  key: Awaited<ReturnType<typeof importPKCS8>>;
}

const keys = new Map<string, Promise<SigningKey>>();

/** Signs the enrollment JWT: `{iss, sub, aud: [""], exp, jti, em, ctrls}`, no `iat`. */
export async function signEnrollmentJwt(signer: JwtSigner, claims: EnrollmentClaims): Promise<string> {
  const { alg, kid, key } = await signingKey(signer);
  return new SignJWT({ em: claims.method, ctrls: claims.controllers })
    .setProtectedHeader({ alg, typ: 'JWT', kid })
    .setIssuer(claims.issuer.replace(/\/+$/, ''))
    .setSubject(claims.subject)
    .setAudience([''])
    .setJti(claims.token)
    .setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000))
    .sign(key);
}

/** The audience of a third-party CA's enrollment JWT (upstream `env.JwtAudEnrollment`). */
export const CA_JWT_AUDIENCE = 'openziti-enroller';

/**
 * The static enrollment JWT of a third-party CA (BEHAVIOR.md §5.3): `{em: "ca", iss: "<base>/"
 * (with the trailing slash), aud: ["openziti-enroller"], sub = jti = caId}`, no `exp`, no `iat`.
 */
export async function signCaEnrollmentJwt(signer: JwtSigner, claims: { issuer: string; caId: string }): Promise<string> {
  const { alg, kid, key } = await signingKey(signer);
  return new SignJWT({ em: 'ca' })
    .setProtectedHeader({ alg, typ: 'JWT', kid })
    .setIssuer(`${claims.issuer.replace(/\/+$/, '')}/`)
    .setSubject(claims.caId)
    .setAudience([CA_JWT_AUDIENCE])
    .setJti(claims.caId)
    .sign(key);
}

/**
 * The network JWT (`GET /network-jwts`): how a new client finds and trusts the network:
 * `{em: "network", iss, sub: iss, aud: [""], ctrls}`, signed like enrollment JWTs, no `exp`.
 */
export async function signNetworkJwt(signer: JwtSigner, claims: { issuer: string; controllers: string[] }): Promise<string> {
  const { alg, kid, key } = await signingKey(signer);
  const issuer = claims.issuer.replace(/\/+$/, '');
  return new SignJWT({ em: 'network', ctrls: claims.controllers })
    .setProtectedHeader({ alg, typ: 'JWT', kid })
    .setIssuer(issuer)
    .setSubject(issuer)
    .setAudience([''])
    .sign(key);
}

/**
 * A TOTP token (`POST /current-api-session/totp-token`): proof that the identity `sub` submitted a
 * valid TOTP code at `iat` within the API session `z_asid`; `z_t: "t"` as upstream's TotpClaims.
 */
export async function signTotpJwt(signer: JwtSigner, claims: { issuer: string; identityId: string; apiSessionId: string; id: string; issuedAt: Date }): Promise<string> {
  const { alg, kid, key } = await signingKey(signer);
  return new SignJWT({ z_asid: claims.apiSessionId, z_t: 't' })
    .setProtectedHeader({ alg, typ: 'JWT', kid })
    .setIssuer(claims.issuer.replace(/\/+$/, ''))
    .setSubject(claims.identityId)
    .setJti(claims.id)
    .setIssuedAt(Math.floor(claims.issuedAt.getTime() / 1000))
    .sign(key);
}

/** Imports the key once per PEM. node-forge writes PKCS#1 (`BEGIN RSA PRIVATE KEY`): it is
 * re-exported as PKCS#8 for jose. */
function signingKey(signer: JwtSigner): Promise<SigningKey> {
  const cacheKey = signer.certPem + signer.keyPem;
  let found = keys.get(cacheKey);
  if (!found) {
    found = importSigningKey(signer);
    found.catch(() => keys.delete(cacheKey));
    keys.set(cacheKey, found);
  }
  return found;
}

async function importSigningKey(signer: JwtSigner): Promise<SigningKey> {
  const privateKey = createPrivateKey(signer.keyPem);
  const alg = algorithmOf(privateKey.asymmetricKeyType, privateKey.asymmetricKeyDetails?.namedCurve);
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const kid = certFingerprint(new X509Certificate(signer.certPem));
  return { alg, kid, key: await importPKCS8(pkcs8, alg) };
}

function algorithmOf(type: string | undefined, curve: string | undefined): string {
  if (type === 'rsa') return 'RS256';
  if (type === 'ec') {
    if (curve === 'prime256v1' || curve === 'P-256') return 'ES256';
    if (curve === 'secp384r1' || curve === 'P-384') return 'ES384';
    if (curve === 'secp521r1' || curve === 'P-521') return 'ES512';
  }
  throw new Error(`unsupported enrollment signing key: ${type ?? 'unknown'} ${curve ?? ''}`.trim());
}
