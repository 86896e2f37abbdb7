// TOTP helpers: secret and recovery-code formats, the ±2-step window, code shapes, the
// provisioning URL, and the MFA auth query of partially authenticated sessions.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateSync, createGuardrails } from 'otplib';
import { MFA_AUTH_QUERY, isMfaPending } from '../../../src/domain/mfa-session.js';
import { authQueriesOf } from '../../../src/domain/secondary-auth.js';
import {
  TOTP_ISSUER,
  base32,
  isTotpShaped,
  provisioningUrl,
  recoveryCodeFromBytes,
  secretFromBytes,
  verifyTotp,
} from '../../../src/domain/totp.js';

const SECRET = 'JBSWY3DPEHPK3PXP'; // 10 bytes
const NOW = Date.UTC(2024, 0, 1, 12, 0, 10); // 10 s into a 30 s step
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });

/** The code of `steps` periods away from NOW. */
function codeAt(steps: number, secret = SECRET): string {
  return generateSync({ secret, epoch: Math.floor(NOW / 1000) + steps * 30, guardrails });
}

describe('base32, secrets and recovery codes', () => {
  it('encodes RFC 4648 test vectors without padding', () => {
    const vectors: [string, string][] = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']];
    for (const [plain, encoded] of vectors) assert.equal(base32(Buffer.from(plain)), encoded);
  });

  it('makes 16-character secrets of 10 bytes', () => {
    const secret = secretFromBytes(Buffer.from('0123456789abcdef0123', 'hex'));
    assert.match(secret, /^[A-Z2-7]{16}$/);
    assert.throws(() => secretFromBytes(Buffer.alloc(16)));
  });

  it('makes 6-character recovery codes from 8 bytes', () => {
    assert.equal(recoveryCodeFromBytes(Buffer.from('foobarba')), 'MZXW6Y');
    assert.match(recoveryCodeFromBytes(Buffer.alloc(8, 0xff)), /^[A-Z2-7]{6}$/);
    assert.throws(() => recoveryCodeFromBytes(Buffer.alloc(10)));
  });
});

describe('verifyTotp', () => {
  it('accepts the current code and those up to two steps either side', () => {
    for (const steps of [-2, -1, 0, 1, 2]) assert.equal(verifyTotp(SECRET, codeAt(steps), NOW), true, `step ${steps}`);
  });

  it('has distinct codes around NOW (so the window tests below mean what they say)', () => {
    const codes = [-3, -2, -1, 0, 1, 2, 3].map((s) => codeAt(s));
    assert.equal(new Set(codes).size, codes.length);
    assert.notEqual(codeAt(0, 'GEZDGNBVGY3TQOJQ'), codeAt(0));
  });

  it('refuses codes three steps away', () => {
    assert.equal(verifyTotp(SECRET, codeAt(-3), NOW), false);
    assert.equal(verifyTotp(SECRET, codeAt(3), NOW), false);
  });

  it('moves the window by whole 30-second steps', () => {
    const stepStart = NOW - 10_000;
    assert.equal(verifyTotp(SECRET, codeAt(-2), stepStart + 29_999), true);
    assert.equal(verifyTotp(SECRET, codeAt(-2), stepStart + 30_000), false);
    assert.equal(verifyTotp(SECRET, codeAt(2), stepStart - 1), false);
  });

  it('matches the RFC 6238 SHA-1 vector (time 59 s, last six digits of 94287082)', () => {
    const rfcSecret = base32(Buffer.from('12345678901234567890'));
    assert.equal(verifyTotp(rfcSecret, '287082', 59_000), true);
    assert.equal(verifyTotp(rfcSecret, '287083', 59_000), false);
  });

  it('refuses a code of another secret', () => {
    assert.equal(verifyTotp(SECRET, codeAt(0, 'GEZDGNBVGY3TQOJQ'), NOW), false);
  });

  it('accepts only six digits', () => {
    const good = codeAt(0);
    for (const code of ['', '12345', '1234567', `${good}0`, 'abcdef', '12 456', '+12345', '-12345', '1234.5']) {
      assert.equal(isTotpShaped(code), false, code);
      assert.equal(verifyTotp(SECRET, code, NOW), false, code);
    }
    assert.equal(isTotpShaped('012345'), true);
  });

  it('answers false (never throws) for a malformed secret', () => {
    assert.equal(verifyTotp('not base32!', codeAt(0), NOW), false);
  });
});

describe('provisioningUrl', () => {
  it('builds otpauth://totp/<issuer>:<name> with issuer and secret', () => {
    const url = provisioningUrl('laptop-01', SECRET);
    assert.equal(url, `otpauth://totp/openziti.io:laptop-01?issuer=openziti.io&secret=${SECRET}`);
    const parsed = new URL(url);
    assert.equal(parsed.protocol, 'otpauth:');
    assert.equal(parsed.host, 'totp');
    assert.equal(parsed.pathname, `/${TOTP_ISSUER}:laptop-01`);
    assert.equal(parsed.searchParams.get('secret'), SECRET);
    assert.equal(parsed.searchParams.get('issuer'), 'openziti.io');
  });

  it('escapes the issuer as Go does and leaves the name as it is', () => {
    assert.equal(provisioningUrl('a b', 'S', "my co (x)"), 'otpauth://totp/my co (x):a b?issuer=my+co+%28x%29&secret=S');
  });
});

describe('MFA session state', () => {
  it('is pending while required and not complete', () => {
    assert.equal(isMfaPending({ isMfaRequired: true, isMfaComplete: false }), true);
    assert.equal(isMfaPending({ isMfaRequired: true, isMfaComplete: true }), false);
    assert.equal(isMfaPending({ isMfaRequired: false }), false);
    assert.equal(isMfaPending({}), false);
  });

  it('shows the upstream MFA auth query only while pending', () => {
    assert.deepEqual(authQueriesOf({ isMfaRequired: true, isMfaComplete: false }), [
      { typeId: 'MFA', provider: 'ziti', format: 'alphaNumeric', httpMethod: 'POST', httpUrl: './authenticate/mfa', minLength: 4, maxLength: 6 },
    ]);
    assert.deepEqual(authQueriesOf({ isMfaRequired: true, isMfaComplete: true }), []);
    assert.ok(Object.isFrozen(MFA_AUTH_QUERY));
  });
});
