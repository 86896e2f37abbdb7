// The router catalog actors (`routers` and, extended, `edge-routers`): creates routers with a
// one-time enrollment (token + JWT), completes and re-enrolls them, and otherwise writes like any
// catalog.

import { randomUUID } from 'node:crypto';
import type { Entity, Op } from '../domain/commands.js';
import { resourceOf } from '../domain/registry.js';
import { ApiError } from '../errors.js';
import { signEnrollmentJwt } from '../pki/enrollment-jwt.js';
import { CatalogActor } from './catalog-actor.js';
import type { ActorDeps } from './actor-deps.js';
import { enrollRouter, extendRouterEnrollment } from './credentials/router-enroll.js';

/** Upstream's default `edge.enrollment.edgeRouter.duration`. */
export const ROUTER_ENROLLMENT_MINUTES = 180;

/** The enrollment method written into the JWT `em` claim: `erott` (edge) or `trott` (transit). */
export type RouterEnrollmentMethod = 'erott' | 'trott';

export class RouterCatalog extends CatalogActor {
  constructor(
    kind: 'routers' | 'edge-routers',
    private readonly method: RouterEnrollmentMethod,
    protected readonly deps: ActorDeps,
  ) {
    super(kind, deps.writer);
    this.extra.reEnroll = (id) => this.reEnroll(id);
    this.extra.enroll = (id, msg) => enrollRouter(this.deps, this.kind, id, msg);
    this.extra.extendEnrollment = (id, msg) => extendRouterEnrollment(this.deps, this.kind, id, msg);
  }

  /** Ops the kind adds to a write of one router (old absent on create, next absent on delete). */
  protected async relatedOps(_old: Entity | undefined, _next: Entity | undefined, _at: string): Promise<Op[]> {
    return [];
  }

  protected override async create(id: string, body: unknown): Promise<{ id: string }> {
    const at = new Date().toISOString();
    const op = this.deps.writer.buildCreate(this.kind, id, body, at);
    Object.assign(op.record, await this.enrollment(id, at), { isVerified: false, fingerprint: null });
    await this.deps.proposer.propose([op, ...(await this.relatedOps(undefined, op.record, at))], at);
    return { id };
  }

  protected override async update(id: string, body: unknown, mode: 'replace' | 'patch'): Promise<void> {
    const at = new Date().toISOString();
    const { op, old } = await this.deps.writer.buildUpdate(this.kind, id, body, mode, at);
    await this.deps.proposer.propose([op, ...(await this.relatedOps(old, op.record, at))], at);
  }

  protected override async remove(id: string): Promise<void> {
    const old = await this.deps.replica.get(this.kind, id);
    if (!old) throw new ApiError('NOT_FOUND');
    const at = new Date().toISOString();
    await this.deps.proposer.propose([...(await this.relatedOps(old, undefined, at)), { op: 'delete', kind: this.kind, id }], at);
  }

  /** A new token and JWT; the router's certificate is forgotten until it enrolls again. */
  private async reEnroll(id: string): Promise<Record<string, never>> {
    if (!(await this.deps.replica.get(this.kind, id))) throw new ApiError('NOT_FOUND');
    const at = new Date().toISOString();
    const fields: Record<string, unknown> = { ...(await this.enrollment(id, at)), isVerified: false, fingerprint: null, updatedAt: at };
    if ('certPem' in resourceOf(this.kind).fields) fields.certPem = null;
    await this.deps.proposer.propose([{ op: 'set', kind: this.kind, id, fields }], at);
    return {};
  }

  private async enrollment(id: string, at: string): Promise<Record<string, string>> {
    const { signer, baseUrl } = this.deps;
    const token = randomUUID();
    const expiresAt = new Date(Date.parse(at) + ROUTER_ENROLLMENT_MINUTES * 60_000);
    const jwt = await signEnrollmentJwt(
      { certPem: signer.caCertPem, keyPem: signer.caKeyPem },
      { issuer: baseUrl, subject: id, token, method: this.method, expiresAt, controllers: this.deps.controllers?.() ?? [baseUrl] },
    );
    return { enrollmentToken: token, enrollmentJwt: jwt, enrollmentCreatedAt: at, enrollmentExpiresAt: expiresAt.toISOString() };
  }
}
