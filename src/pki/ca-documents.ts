// The node CA in the public forms clients fetch without a session: EST `cacerts` (a certs-only
// PKCS#7 SignedData, base64 DER, RFC 7030 §4.1.3) and a JWKS of the CA key that signs
// enrollment JWTs (kid = hex SHA-1 of the certificate, as in the JWT headers).

import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { certFingerprint } from './ca-certificates.js';

/** Base64 DER of a degenerate PKCS#7 SignedData holding every certificate of `pem`. */
export function estCaCerts(pem: string): string {
  const p7 = forge.pkcs7.createSignedData();
  for (const cert of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    p7.addCertificate(forge.pki.certificateFromPem(cert));
  }
  const der = forge.asn1.toDer(p7.toAsn1()).getBytes();
  return forge.util.encode64(der, 64);
}

/** `{keys: [jwk]}` of the CA certificate's public key. */
export function caJwks(caCertPem: string): { keys: Record<string, unknown>[] } {
  const cert = new X509Certificate(caCertPem);
  const jwk = cert.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const kid = certFingerprint(cert);
  const alg = jwk.kty === 'RSA' ? 'RS256' : jwk.crv === 'P-384' ? 'ES384' : jwk.crv === 'P-521' ? 'ES512' : 'ES256';
  return { keys: [{ ...jwk, kid, alg, use: 'sig', x5c: [cert.raw.toString('base64')] }] };
}
