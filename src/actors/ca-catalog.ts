// The CA catalog actor: creates third-party CAs (the certificate must be a CA; fingerprint and
// verification token decided here), updates them, verifies a proof of possession and signs the
// CA's enrollment JWT. Deleting a CA removes its ottca enrollments through the apply cascade.

import { randomUUID, type X509Certificate } from 'node:crypto';
import { prepareCaValues } from '../domain/ca-rules.js';
import { ApiError, fieldError } from '../errors.js';
import { caJwks, estCaCerts } from '../pki/ca-documents.js';
import { signCaEnrollmentJwt, signNetworkJwt } from '../pki/enrollment-jwt.js';
import { CatalogActor } from './catalog-actor.js';
import type { ActorDeps } from './actor-deps.js';
import { certFingerprint, commonNameOf, isIssuedBy, parseCertificates, pemBlocks } from '../pki/ca-certificates.js';

const KIND = 'cas';

export class CaCatalog extends CatalogActor {
  constructor(private readonly deps: ActorDeps) {
    super(KIND, deps.writer);
    this.extra.verify = (id, msg) => this.verify(id, msg.body);
    this.extra.jwt = (id) => this.jwt(id);
    // The node CA's public documents (no CA entity involved; served without a session).
    this.extra.networkJwt = async () => ({
      jwt: await signNetworkJwt(this.signer(), { issuer: this.deps.baseUrl, controllers: this.deps.controllers?.() ?? [this.deps.baseUrl] }),
    });
    this.extra.estCaCerts = async () => ({ pkcs7: estCaCerts(this.deps.signer.caCertPem) });
    this.extra.jwks = async () => caJwks(this.deps.signer.caCertPem);
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    const op = this.deps.writer.buildCreate(KIND, id, body, at);
    prepareCaValues(op.record, undefined, 'create');
    const fingerprint = certFingerprint(caCertificate(String(op.record.certPem)));
    const holder = await this.deps.replica.findUnique(KIND, 'fingerprint', fingerprint);
    if (holder) throw fieldError('certPem', '(certificate)', `certificate already used as CA ${holder.id}`);
    // A UUID, as upstream (the spec's `format: uuid`).
    Object.assign(op.record, { fingerprint, isVerified: false, verificationToken: randomUUID() });
    await this.deps.proposer.propose([op], at);
    return { id };
  }

  /** On patch only the fields present change (the external-id claim property by property). */
  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const at = new Date().toISOString();
    const { op, old } = await this.deps.writer.buildUpdate(KIND, id, body, mode, at);
    if (mode === 'replace') {
      prepareCaValues(op.record, old, mode);
    } else {
      const present = presentFields(body, ['identityRoles', 'identityNameFormat', 'externalIdClaim']);
      const changes = Object.fromEntries(present.map((name) => [name, op.record[name]]));
      prepareCaValues(changes, old, mode);
      Object.assign(op.record, changes);
    }
    await this.deps.proposer.propose([op], at);
  }

  /** Proof of possession (BEHAVIOR.md §5.3): a certificate whose CN is the verification token,
   * signed by the CA. Errors in upstream's order. */
  private async verify(id: string, body: unknown): Promise<Record<string, never>> {
    const ca = await this.deps.replica.get(KIND, id);
    if (!ca) throw new ApiError('NOT_FOUND');
    if (ca.isVerified === true) throw new ApiError('CA_ALREADY_VERIFIED');
    const leaf = verificationCertificate(body);
    if (commonNameOf(leaf) !== ca.verificationToken) {
      throw new ApiError('INVALID_COMMON_NAME', { code: 'UNHANDLED', message: 'the certificate common name is not the verification token of the CA' });
    }
    if (!isIssuedBy(leaf, caCertificate(String(ca.certPem)))) {
      throw new ApiError('CERTIFICATE_FAILED_VALIDATION', { code: 'UNHANDLED', message: 'the certificate is not signed by the CA, or is outside its validity period' });
    }
    const at = new Date().toISOString();
    await this.deps.proposer.propose([{ op: 'set', kind: KIND, id, fields: { isVerified: true, updatedAt: at } }], at);
    return {};
  }

  private signer(): { certPem: string; keyPem: string } {
    return { certPem: this.deps.signer.caCertPem, keyPem: this.deps.signer.caKeyPem };
  }

  private async jwt(id: string): Promise<{ jwt: string }> {
    if (!(await this.deps.replica.get(KIND, id))) throw new ApiError('NOT_FOUND');
    const { signer, baseUrl } = this.deps;
    const jwt = await signCaEnrollmentJwt({ certPem: signer.caCertPem, keyPem: signer.caKeyPem }, { issuer: baseUrl, caId: id });
    return { jwt };
  }
}

/** The first certificate of a CA's PEM: it must parse and be a CA (basicConstraints CA:TRUE). */
function caCertificate(certPem: string): X509Certificate {
  let certs: X509Certificate[];
  try {
    certs = parseCertificates(certPem);
  } catch (err) {
    throw fieldError('certPem', '(certificate)', `certPem could not be parsed: ${(err as Error).message}`);
  }
  const leaf = certs[0];
  if (!leaf) throw fieldError('certPem', '(certificate)', 'at least one leaf certificate must be supplied');
  if (!leaf.ca) throw fieldError('certPem', '(certificate)', 'certificate is not a CA');
  return leaf;
}

/** The verify body: PEM text whose first block is a certificate; anything else is 400. */
function verificationCertificate(body: unknown): X509Certificate {
  const unparsable = (message: string) => new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message });
  const block = typeof body === 'string' ? pemBlocks(body)[0] : undefined;
  if (!block) throw unparsable('the body must be a PEM encoded certificate');
  if (block.type !== 'CERTIFICATE') throw unparsable(`expected PEM block CERTIFICATE, encountered ${block.type}`);
  try {
    return parseCertificates(block.pem)[0]!;
  } catch (err) {
    throw unparsable(`the certificate could not be parsed: ${(err as Error).message}`);
  }
}

function presentFields(body: unknown, names: string[]): string[] {
  if (!body || typeof body !== 'object') return [];
  return names.filter((name) => (body as Record<string, unknown>)[name] !== undefined);
}
