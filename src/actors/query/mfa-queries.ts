// MFA reads for the caller's own identity (detail, recovery codes, provisioning URL for the QR
// code) and the MFA parts of presented identities and API sessions. Never writes.

import type { Entity } from '../../domain/commands.js';
import type { MfaSessionFields } from '../../domain/mfa-session.js';
import { authQueriesOf } from '../../domain/secondary-auth.js';
import { provisioningUrl, verifyTotp } from '../../domain/totp.js';
import { ApiError } from '../../errors.js';
import type { Replica } from '../../store/replica.js';
import { mfaNow } from '../mfa/mfa-clock.js';
import type { Presenter, Wire } from './present.js';

/** Answers one MFA query; `identityId` is the caller's, `code` a TOTP code where one is needed. */
export async function answerMfaQuery(msg: Record<string, unknown>, replica: Replica): Promise<unknown> {
  const identityId = String(msg.identityId ?? '');
  const mfa = await replica.findUnique('mfas', 'identityId', identityId);
  if (!mfa) throw new ApiError('NOT_FOUND');
  const verified = mfa.isVerified === true;
  switch (msg.op) {
    case 'mfaDetail':
      return presentMfa(mfa, await identityName(replica, identityId));
    case 'mfaRecoveryCodes': {
      if (!verified) throw new ApiError('NOT_FOUND');
      // Viewing the codes takes a TOTP code: a recovery code does not show the others.
      const code = typeof msg.code === 'string' ? msg.code : '';
      if (!verifyTotp(String(mfa.secret), code, mfaNow())) throw new ApiError('MFA_INVALID_TOKEN');
      return { ...baseWire(mfa), recoveryCodes: recoveryCodes(mfa) };
    }
    case 'mfaProvisioningUrl':
      if (verified) throw new ApiError('NOT_FOUND');
      return { provisioningUrl: provisioningUrl(await identityName(replica, identityId), String(mfa.secret)) };
    default:
      throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown MFA query ${String(msg.op)}` });
  }
}

/** `GET /current-identity/mfa`: the secret material only while the enrollment is unverified. */
function presentMfa(mfa: Entity, name: string): Wire {
  const wire: Wire = { ...baseWire(mfa), isVerified: mfa.isVerified === true };
  if (mfa.isVerified !== true) {
    wire.recoveryCodes = recoveryCodes(mfa);
    wire.provisioningUrl = provisioningUrl(name, String(mfa.secret));
  }
  return wire;
}

function baseWire(mfa: Entity): Wire {
  const links: Record<string, { href: string }> = {
    self: { href: './current-identity/mfa' },
    'current-identity': { href: './current-identity' },
  };
  if (mfa.isVerified === true) links['recovery-codes'] = { href: './current-identity/mfa/recovery-codes' };
  else {
    links.verify = { href: './current-identity/mfa/verify' };
    links.qr = { href: './current-identity/mfa/qr-code' };
  }
  return { id: mfa.id, createdAt: mfa.createdAt, updatedAt: mfa.updatedAt, tags: mfa.tags ?? {}, _links: links };
}

function recoveryCodes(mfa: Entity): string[] {
  return Array.isArray(mfa.recoveryCodes) ? [...(mfa.recoveryCodes as string[])] : [];
}

async function identityName(replica: Replica, identityId: string): Promise<string> {
  return String((await replica.get('identities', identityId))?.name ?? '');
}

/** Identities show `isMfaEnabled` (a verified MFA); API sessions their outstanding MFA query. */
export function registerMfaDecorators(presenter: Presenter): void {
  presenter.decorate('identities', async (wire, record, { replica }) => {
    const mfa = await replica.findUnique('mfas', 'identityId', record.id);
    wire.isMfaEnabled = mfa?.isVerified === true;
  });
  presenter.decorate('api-sessions', async (wire, record) => {
    wire.authQueries = authQueriesOf(record as MfaSessionFields);
    // Kept for the posture checks; not an upstream API-session field.
    delete wire.mfaPassedAt;
  });
}
