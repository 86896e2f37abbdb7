// Enrollment JWTs: upstream claims and header, signed with PKCS#1 RSA keys (node-forge's format)
// and EC keys, verifiable with the signing certificate's public key.

import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { ensureNodePki } from '../../../src/pki/node-pki.js';
import { signEnrollmentJwt } from '../../../src/pki/enrollment-jwt.js';

const claims = {
  issuer: 'https://ctrl.test:1280/',
  subject: 'router-1',
  token: '0b0c9a51-6a9b-4a57-9a6e-2f5a8c3c1d11',
  method: 'erott',
  expiresAt: new Date('2030-01-01T00:00:00.000Z'),
  controllers: ['https://ctrl.test:1280'],
};

describe('signEnrollmentJwt', () => {
  it('signs with the node CA (PKCS#1 RSA): RS256, kid = SHA-1 of the cert, upstream claims', async () => {
    const root = await mkdtemp(join(tmpdir(), 'weft-jwt-'));
    try {
      const pki = await ensureNodePki({ dir: join(root, 'pki'), hostnames: ['localhost'], ips: ['127.0.0.1'] });
      const jwt = await signEnrollmentJwt({ certPem: pki.caCertPem, keyPem: pki.caKeyPem }, claims);
      const header = decodeProtectedHeader(jwt);
      assert.equal(header.alg, 'RS256');
      assert.equal(header.typ, 'JWT');
      assert.equal(header.kid, createHash('sha1').update(new X509Certificate(pki.caCertPem).raw).digest('hex'));
      const { payload } = await jwtVerify(jwt, await importX509(pki.caCertPem, 'RS256'), { currentDate: new Date('2029-01-01') });
      assert.deepEqual(payload, {
        em: 'erott',
        ctrls: ['https://ctrl.test:1280'],
        iss: 'https://ctrl.test:1280',
        sub: 'router-1',
        aud: [''],
        jti: claims.token,
        exp: Date.parse('2030-01-01T00:00:00.000Z') / 1000,
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('signs with an EC P-256 key as ES256', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const root = await mkdtemp(join(tmpdir(), 'weft-jwt-'));
    try {
      // Any certificate will do for kid; the signature is checked with the EC public key.
      const pki = await ensureNodePki({ dir: join(root, 'pki'), hostnames: ['localhost'], ips: ['127.0.0.1'] });
      const keyPem = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
      const jwt = await signEnrollmentJwt({ certPem: pki.caCertPem, keyPem }, { ...claims, method: 'ott' });
      assert.equal(decodeProtectedHeader(jwt).alg, 'ES256');
      const { createPublicKey } = await import('node:crypto');
      const { payload } = await jwtVerify(jwt, createPublicKey(privateKey), { currentDate: new Date('2029-01-01') });
      assert.equal(payload.em, 'ott');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
