// MFA reads for the caller's own identity (detail, recovery codes, provisioning URL for the QR
// code) and the MFA parts of presented identities and API sessions. Never writes.

import type { Entity } from '../domain/commands.js';
import type { MfaSessionFields } from '../domain/mfa-session.js';
import { authQueriesOf } from '../domain/secondary-auth.js';
import { provisioningUrl, verifyTotp } from '../domain/totp.js';
import { ApiError } from '../errors.js';
import type { HandlerTable } from '../protocol/v1/handler-table.js';
import type { QueryRequest } from '../protocol/v1/query-messages.js';
import type { Replica } from '../store/replica.js';
import { mfaNow } from '../domain/mfa-clock.js';
import type { Decorators, Wire } from './present.js';

/** The MFA queries of the caller's own identity (`identityId`); `code` is a TOTP code. */
export function mfaQueries(replica: Replica): Pick<HandlerTable<QueryRequest>, 'mfaDetail' | 'mfaRecoveryCodes' | 'mfaProvisioningUrl'> {
  const enrolled = async (identityId: string) => {
    const mfa = await replica.findUnique('mfas', 'identityId', identityId);
    if (!mfa) throw new ApiError('NOT_FOUND');
    return mfa;
  };
  return {
    mfaDetail: async (m) => presentMfa(await enrolled(m.identityId), await identityName(replica, m.identityId)),
    mfaRecoveryCodes: async (m) => {
      const mfa = await enrolled(m.identityId);
      if (mfa.isVerified !== true) throw new ApiError('NOT_FOUND');
      // Viewing the codes takes a TOTP code: a recovery code does not show the others.
      if (!verifyTotp(String(mfa.secret), m.code ?? '', mfaNow())) throw new ApiError('MFA_INVALID_TOKEN');
      return { ...baseWire(mfa), recoveryCodes: recoveryCodes(mfa) };
    },
    mfaProvisioningUrl: async (m) => {
      const mfa = await enrolled(m.identityId);
      if (mfa.isVerified === true) throw new ApiError('NOT_FOUND');
      return { provisioningUrl: provisioningUrl(await identityName(replica, m.identityId), String(mfa.secret)) };
    },
  };
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
export function mfaDecorators(): Decorators {
  return {
    identities: async (wire, record, { replica }) => {
      const mfa = await replica.findUnique('mfas', 'identityId', record.id);
      wire.isMfaEnabled = mfa?.isVerified === true;
    },
    'api-sessions': async (wire, record) => {
      wire.authQueries = authQueriesOf(record as MfaSessionFields);
      // Kept for the posture checks; not an upstream API-session field.
      delete wire.mfaPassedAt;
    },
  };
}
