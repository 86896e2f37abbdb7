// The TLS protocol policy every listener of the node serves with (HTTPS and gRPC), in one place.

/**
 * TLS 1.2 or later; under TLS 1.2 only forward-secret AEAD suites (ECDHE with AES-GCM or
 * ChaCha20-Poly1305, for RSA and ECDSA keys); TLS 1.3 suites are OpenSSL's defaults (all
 * forward-secret AEAD). Options of tls.createSecureContext / createServer.
 */
export const TLS_POLICY = {
  minVersion: 'TLSv1.2',
  ciphers: [
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'TLS_AES_128_GCM_SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
  ].join(':'),
  honorCipherOrder: true,
} as const;
