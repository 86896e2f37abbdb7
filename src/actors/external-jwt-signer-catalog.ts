// The external JWT signer catalog actor: validates signers (certPem xor JWKS endpoint) and
// derives the certificate fields (fingerprint, common name, validity) before proposing.
// Deleting a signer that an auth policy names is refused in apply (409).

import { prepareSignerValues } from '../domain/ext-jwt-signer-rules.js';
import { fieldError } from '../errors.js';
import { CatalogActor } from './catalog-actor.js';
import type { ActorDeps } from './actor-deps.js';
import { certFingerprint, commonNameOf, parseCertificates } from '../pki/ca-certificates.js';

const KIND = 'external-jwt-signers';

export class ExternalJwtSignerCatalog extends CatalogActor {
  constructor(private readonly deps: ActorDeps) {
    super(KIND, deps.writer);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    const op = this.deps.writer.buildCreate(KIND, id, body, at);
    prepareSignerValues(op.record, undefined, 'create');
    Object.assign(op.record, await this.certificateFields(id, op.record.certPem as string | null));
    await this.deps.proposer.propose([op], at);
    return { id };
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const at = new Date().toISOString();
    const { op, old } = await this.deps.writer.buildUpdate(KIND, id, body, mode, at);
    prepareSignerValues(op.record, old, mode);
    Object.assign(op.record, await this.certificateFields(id, op.record.certPem as string | null));
    await this.deps.proposer.propose([op], at);
  }

  /** A certPem signer holds exactly one certificate, used by no other signer. */
  private async certificateFields(id: string, certPem: string | null): Promise<Record<string, unknown>> {
    if (certPem === null) return { fingerprint: null, commonName: '', notBefore: null, notAfter: null };
    let certs;
    try {
      certs = parseCertificates(certPem);
    } catch (err) {
      throw fieldError('certPem', '(certificate)', `certPem could not be parsed: ${(err as Error).message}`);
    }
    if (certs.length !== 1) throw fieldError('certPem', '(certificate)', 'certPem must hold exactly one PEM certificate');
    const cert = certs[0]!;
    const fingerprint = certFingerprint(cert);
    const holder = await this.deps.replica.findUnique(KIND, 'fingerprint', fingerprint);
    if (holder && holder.id !== id) throw fieldError('certPem', '(certificate)', `certificate already used by external JWT signer ${holder.id}`);
    return {
      fingerprint,
      commonName: commonNameOf(cert),
      notBefore: new Date(cert.validFrom).toISOString(),
      notAfter: new Date(cert.validTo).toISOString(),
    };
  }
}
