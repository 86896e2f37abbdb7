// The enrollments catalog actor: creates, refreshes and deletes identity enrollments, and turns
// an authenticator back into an enrollment (re-enroll). One mailbox for the kind serialises the
// one-outstanding-enrollment-per-method rule.

import { X509Certificate } from 'node:crypto';
import { recordFingerprint, type Entity } from '../../domain/commands.js';
import { resourceOf } from '../../domain/registry.js';
import type { EnrollmentMethod } from '../../domain/resources/enrollments.js';
import { validateBody } from '../../domain/validate.js';
import { ApiError, fieldError } from '../../errors.js';
import { CatalogActor } from '../catalog-actor.js';
import type { CredentialDeps } from './credential-deps.js';
import { buildEnrollment, enrollmentToken, refuseOutstanding, requireCa, requireFuture, type EnrollmentSpec } from './enrollment-records.js';
import { certificateOf, chainsTo, findIssuingCa } from '../../pki/trust.js';

const KIND = 'enrollments';

export class EnrollmentCatalog extends CatalogActor {
  constructor(private readonly deps: CredentialDeps) {
    super(KIND, deps.writer);
    this.extra.refresh = (id, msg) => this.refresh(id, msg.body);
    this.extra.reEnroll = (id, msg) => this.reEnroll(id, String(msg.authenticatorId ?? ''), msg.body);
  }

  /** Enrollments are created, refreshed and deleted, never edited. */
  protected override update(): Promise<unknown> {
    return Promise.reject(new ApiError('METHOD_NOT_ALLOWED'));
  }

  /** `POST /enrollments` (BEHAVIOR.md §5.1): the checks in upstream's order, then token and JWT. */
  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const { replica, proposer } = this.deps;
    const values = validateBody(resourceOf(KIND), body, 'create');
    const identityId = String(values.identityId);
    if (!(await replica.get('identities', identityId))) throw fieldError('identityId', identityId, 'no identity found with the given id');
    const expiresAt = requireFuture(values.expiresAt);
    const method = values.method as EnrollmentMethod;
    const spec: EnrollmentSpec = { method, identityId, caId: null, username: null, expiresAt };
    if (method === 'ottca') spec.caId = (await requireCa(replica, values.caId, 'caId')).id;
    if (method === 'updb') {
      if (typeof values.username !== 'string') throw fieldError('username', null, 'username is required for method updb');
      spec.username = values.username;
    }
    await refuseOutstanding(replica, identityId, method);
    const at = new Date().toISOString();
    const record = await buildEnrollment(this.deps, id, spec, at);
    if (values.tags) record.tags = values.tags as Entity['tags'];
    await proposer.propose([{ op: 'create', kind: KIND, record }], at);
    return { id };
  }

  /** A new expiry, token and JWT; the old token no longer enrolls. */
  private async refresh(id: string, body: unknown): Promise<{ id: string }> {
    const old = await this.deps.replica.get(KIND, id);
    if (!old) throw new ApiError('NOT_FOUND');
    const expiresAt = requireFuture((body as { expiresAt?: unknown } | null)?.expiresAt);
    const spec = { ...(old as unknown as EnrollmentSpec), expiresAt };
    const at = new Date().toISOString();
    const fields = { expiresAt, ...(await enrollmentToken(this.deps, spec)), updatedAt: at };
    await this.deps.proposer.propose([{ op: 'set', kind: KIND, id, fields, expect: recordFingerprint(old) }], at);
    return { id };
  }

  /**
   * "Revert to enrollment": updb → updb (same username), a certificate from the node CA → ott, a
   * certificate from a third-party CA → ottca. The authenticator (and its sessions) go in the
   * same command as the new enrollment is created.
   */
  private async reEnroll(id: string, authenticatorId: string, body: unknown): Promise<{ id: string }> {
    const { replica, proposer } = this.deps;
    const authenticator = await replica.get('authenticators', authenticatorId);
    if (!authenticator) throw new ApiError('NOT_FOUND');
    const expiresAt = requireFuture((body as { expiresAt?: unknown } | null)?.expiresAt);
    const identityId = String(authenticator.identityId);
    const spec: EnrollmentSpec = { method: 'ott', identityId, caId: null, username: null, expiresAt };
    if (authenticator.method === 'updb') {
      Object.assign(spec, { method: 'updb', username: String(authenticator.username) });
    } else {
      const caId = await this.issuingCaId(String(authenticator.certPem ?? ''));
      if (caId) Object.assign(spec, { method: 'ottca', caId });
    }
    await refuseOutstanding(replica, identityId, spec.method);
    const at = new Date().toISOString();
    const record = await buildEnrollment(this.deps, id, spec, at);
    const expect = recordFingerprint(authenticator);
    await proposer.propose([{ op: 'create', kind: KIND, record }, { op: 'delete', kind: 'authenticators', id: authenticatorId, expect }], at);
    return { id };
  }

  /** The third-party CA a certificate chains to; none for certificates of the node CA. */
  private async issuingCaId(certPem: string): Promise<string | undefined> {
    let leaf: X509Certificate;
    try {
      leaf = new X509Certificate(certPem);
    } catch {
      return undefined;
    }
    if (chainsTo(leaf, [], certificateOf(this.deps.signer.caCertPem))) return undefined;
    return (await findIssuingCa(this.deps.replica, { leaf, intermediates: [] }, () => true))?.id;
  }
}
