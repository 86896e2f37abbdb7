// The API session certificate catalog: signs a session's CSR with the node CA (client usage, 12
// hours) and keeps the certificate under the session, which the delete cascade removes with it.
// Whose session a certificate belongs to is decided by the gateway, never by the request body.

import { X509Certificate } from 'node:crypto';
import { newId } from '../domain/ids.js';
import { SESSION_CERT_HOURS } from '../domain/resources/api-session-certificates.js';
import { ApiError } from '../errors.js';
import type { ActorDeps } from './actor-deps.js';
import { CatalogActor } from './catalog-actor.js';
import { signWithNodeCa } from './credentials/credential-deps.js';

const KIND = 'api-session-certificates';

export class ApiSessionCertificateCatalog extends CatalogActor {
  constructor(private readonly deps: ActorDeps) {
    super(KIND, deps.writer);
  }

  /** `body`: `{apiSessionId, csr}` (the caller's session, set by the gateway). */
  protected override async create(_id: string, body: unknown): Promise<{ id: string; certificate: string; cas: string }> {
    const { apiSessionId, csr } = (body ?? {}) as { apiSessionId?: unknown; csr?: unknown };
    if (typeof apiSessionId !== 'string' || !(await this.deps.replica.get('api-sessions', apiSessionId))) throw new ApiError('UNAUTHORIZED');
    const signed = await signWithNodeCa(this.deps, csr, 'client', { validityDays: SESSION_CERT_HOURS / 24 });
    const cert = new X509Certificate(signed.certPem);
    const at = new Date().toISOString();
    const id = newId();
    const record = {
      id,
      createdAt: at,
      updatedAt: at,
      tags: {},
      apiSessionId,
      subject: subjectOf(cert),
      fingerprint: signed.fingerprint,
      validFrom: new Date(cert.validFrom).toISOString(),
      validTo: new Date(cert.validTo).toISOString(),
      certificate: signed.certPem,
    };
    await this.deps.proposer.propose([{ op: 'create', kind: KIND, record }], at);
    return { id, certificate: signed.certPem, cas: this.deps.signer.caCertPem };
  }
}

/** The subject as Go's pkix.Name.String() writes it: RDNs last-first, comma separated. */
function subjectOf(cert: X509Certificate): string {
  return cert.subject.split('\n').filter(Boolean).reverse().join(',');
}
