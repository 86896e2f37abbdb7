// Identity create in the identity actor: the identity and, when the body asks for one, its
// enrollment (`enrollment: {ott: true} | {ottca: caId} | {updb: username}`) in one command.

import type { Op } from '../../domain/commands.js';
import { newId } from '../../domain/ids.js';
import type { CredentialDeps } from './credential-deps.js';
import { buildEnrollment, defaultExpiry, requireCa, type EnrollmentSpec } from './enrollment-records.js';

/** Creates identity `id` from the body; the enrollment expires after the default 180 minutes. */
export async function createIdentity(deps: CredentialDeps, id: string, body: unknown): Promise<{ id: string }> {
  const at = new Date().toISOString();
  const ops: Op[] = [deps.writer.buildCreate('identities', id, body, at)];
  const spec = requestedEnrollment(id, body, at);
  if (spec) {
    if (spec.method === 'ottca') await requireCa(deps.replica, spec.caId, 'enrollment.ottca');
    ops.push({ op: 'create', kind: 'enrollments', record: await buildEnrollment(deps, newId(), spec, at) });
  }
  await deps.proposer.propose(ops, at);
  return { id };
}

/** Only one method is used, ott first (upstream's order). The body was validated by buildCreate. */
function requestedEnrollment(identityId: string, body: unknown, at: string): EnrollmentSpec | undefined {
  const requested = (body as { enrollment?: { ott?: unknown; ottca?: unknown; updb?: unknown } } | null)?.enrollment;
  if (!requested || typeof requested !== 'object') return undefined;
  const spec = { identityId, caId: null, username: null, expiresAt: defaultExpiry(at) };
  if (requested.ott === true) return { ...spec, method: 'ott' };
  if (typeof requested.ottca === 'string' && requested.ottca !== '') return { ...spec, method: 'ottca', caId: requested.ottca };
  if (typeof requested.updb === 'string' && requested.updb !== '') return { ...spec, method: 'updb', username: requested.updb };
  return undefined;
}
