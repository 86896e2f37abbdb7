// Enrollment and certificate reads: who holds an enrollment token or a certificate fingerprint
// (so the gateway can address the right actor), and the enrollment and certificate parts of
// presented identities, enrollments, authenticators and API sessions. Never writes.

import type { Entity } from '../domain/commands.js';
import type { HandlerTable } from '../protocol/v1/handler-table.js';
import type { CertIdentity, EnrollmentHolder, QueryRequest } from '../protocol/v1/query-messages.js';
import type { Replica } from '../store/replica.js';
import { externalIdOfPeer } from '../pki/external-id.js';
import { entityRef, type Decorators, type Wire } from './present.js';

/** `findEnrollment`, `findCertIdentity` and `findRouterByFingerprint`. */
export function enrollmentQueries(replica: Replica): Pick<HandlerTable<QueryRequest>, 'findEnrollment' | 'findCertIdentity' | 'findRouterByFingerprint'> {
  return {
    findEnrollment: (m) => findEnrollment(replica, m.token),
    findCertIdentity: (m) => findCertIdentity(replica, m.pems, m.fingerprint),
    findRouterByFingerprint: (m) => findRouterByFingerprint(replica, m.fingerprint),
  };
}

/** Who holds an enrollment token: an identity (ott, ottca, updb) or a router (erott, trott). */
async function findEnrollment(replica: Replica, token: string): Promise<EnrollmentHolder | null> {
  if (token === '') return null;
  const enrollment = await replica.findUnique('enrollments', 'token', token);
  if (enrollment) return { kind: 'identities', id: String(enrollment.identityId), method: String(enrollment.method) };
  const edgeRouter = await replica.findUnique('edge-routers', 'enrollmentToken', token);
  if (edgeRouter) return { kind: 'edge-routers', id: edgeRouter.id, method: 'erott' };
  const router = await replica.findUnique('routers', 'enrollmentToken', token);
  if (router) return { kind: 'routers', id: router.id, method: 'trott' };
  return null;
}

/** Whose client certificate this is (BEHAVIOR.md §4.8): through a CA that authenticates by
 * external id, the identity with the external id its claim reads (`identityId` null when none
 * has it); otherwise the identity of the certificate authenticator with the fingerprint. */
async function findCertIdentity(replica: Replica, pems: unknown, fingerprint: string): Promise<CertIdentity | null> {
  const claimed = await externalIdOfPeer(replica, pems);
  if (claimed) {
    const identity = await replica.findUnique('identities', 'externalId', claimed.externalId);
    return { identityId: identity?.id ?? null, externalId: claimed.externalId, caId: claimed.ca.id };
  }
  const auth = fingerprint === '' ? undefined : await replica.findUnique('authenticators', 'fingerprint', fingerprint);
  return auth?.method === 'cert' ? { identityId: String(auth.identityId), authenticatorId: auth.id } : null;
}

async function findRouterByFingerprint(replica: Replica, fingerprint: string): Promise<{ kind: string; id: string } | null> {
  if (fingerprint === '') return null;
  for (const kind of ['edge-routers', 'routers']) {
    for await (const id of replica.idsWhere(kind, 'fingerprint', fingerprint)) return { kind, id };
  }
  return null;
}

/** The enrollment state of identities, enrollments, authenticators and API sessions. */
export function enrollmentDecorators(): Decorators {
  return {
    identities: async (wire, record, { replica, keepReads = true }) => {
      wire.enrollment = await identityEnrollments(replica, record.id, keepReads);
    },
    enrollments: async (wire, record, { replica }) => {
      const identity = await replica.get('identities', String(record.identityId));
      wire.identity = entityRef('identities', String(record.identityId), String(identity?.name ?? ''));
      wire.caId ??= null;
      wire.username ??= '';
      if (record.caId) wire.ca = await caRef(replica, String(record.caId));
    },
    authenticators: async (wire, record) => {
      wire.isExtendRequested = record.isExtendRequested === true;
      wire.isKeyRollRequested = record.isKeyRollRequested === true;
      wire.extendRequestedAt = record.extendRequestedAt ?? null;
      wire.lastExtendRolledKeys = record.lastExtendRolledKeys === true;
    },
    'api-sessions': async (wire, record, { replica }) => {
      const auth = record.authenticatorId ? await replica.get('authenticators', String(record.authenticatorId)) : undefined;
      if (auth?.method !== 'cert') return;
      wire.isCertExtendable = auth.isIssuedByNetwork === true;
      wire.isCertExtendRequested = auth.isExtendRequested === true;
      wire.isCertKeyRollRequested = auth.isKeyRollRequested === true;
    },
  };
}

/** `enrollment.{ott|ottca|updb}` of an identity's detail, while outstanding. */
async function identityEnrollments(replica: Replica, identityId: string, keep: boolean): Promise<Wire> {
  const out: Wire = {};
  for (const enrollment of await replica.getMany('enrollments', await replica.idsWhereList('enrollments', 'identityId', identityId, keep), keep)) {
    if (enrollment) out[String(enrollment.method)] = await enrollmentSummary(replica, enrollment);
  }
  return out;
}

async function enrollmentSummary(replica: Replica, enrollment: Entity): Promise<Wire> {
  const summary: Wire = { id: enrollment.id, jwt: enrollment.jwt, token: enrollment.token, expiresAt: enrollment.expiresAt };
  if (enrollment.method === 'ottca') {
    summary.caId = enrollment.caId;
    summary.ca = await caRef(replica, String(enrollment.caId));
  }
  if (enrollment.method === 'updb') summary.username = enrollment.username;
  return summary;
}

async function caRef(replica: Replica, caId: string): Promise<Wire> {
  const ca = await replica.get('cas', caId);
  return entityRef('cas', caId, String(ca?.name ?? ''));
}
