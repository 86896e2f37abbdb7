// Building identity enrollment records (BEHAVIOR.md §5.1): the token and the signed JWT are
// decided here, before any proposal. Also the checks every way of creating one shares.

import { randomUUID } from 'node:crypto';
import type { Entity } from '../../domain/commands.js';
import type { EnrollmentMethod } from '../../domain/resources/enrollments.js';
import { checkValue } from '../../domain/validate.js';
import { ApiError, fieldError } from '../../errors.js';
import { signEnrollmentJwt } from '../../pki/enrollment-jwt.js';
import type { Replica } from '../../store/replica.js';
import type { CredentialDeps } from './credential-deps.js';

/** Upstream's default `edge.enrollment.edgeIdentity.duration`. */
export const ENROLLMENT_MINUTES = 180;

/** What an enrollment is for; `expiresAt` is ISO-8601. */
export interface EnrollmentSpec {
  method: EnrollmentMethod;
  identityId: string;
  caId: string | null;
  username: string | null;
  expiresAt: string;
}

/** The default expiry of an enrollment created at `at`. */
export function defaultExpiry(at: string): string {
  return new Date(Date.parse(at) + ENROLLMENT_MINUTES * 60_000).toISOString();
}

/** A new token and its JWT (`jti` = token, `sub` = identity, `exp` = expiresAt). */
export async function enrollmentToken(deps: CredentialDeps, spec: EnrollmentSpec): Promise<{ token: string; jwt: string }> {
  const token = randomUUID();
  const jwt = await signEnrollmentJwt(
    { certPem: deps.signer.caCertPem, keyPem: deps.signer.caKeyPem },
    {
      issuer: deps.baseUrl,
      subject: spec.identityId,
      token,
      method: spec.method,
      expiresAt: new Date(spec.expiresAt),
      controllers: deps.controllers?.() ?? [deps.baseUrl],
    },
  );
  return { token, jwt };
}

/** The record of a new enrollment, token and JWT included. */
export async function buildEnrollment(deps: CredentialDeps, id: string, spec: EnrollmentSpec, at: string): Promise<Entity> {
  return { id, createdAt: at, updatedAt: at, tags: {}, ...spec, ...(await enrollmentToken(deps, spec)) };
}

/** 409 ENROLLMENT_EXISTS when the identity already has an enrollment of this method. */
export async function refuseOutstanding(replica: Replica, identityId: string, method: string): Promise<void> {
  for await (const id of replica.idsWhere('enrollments', 'identityId', identityId)) {
    const existing = await replica.get('enrollments', id);
    if (existing?.method === method) {
      throw new ApiError('ENROLLMENT_EXISTS', { field: 'method', value: method, reason: `an enrollment for method ${method} already exists for identity ${identityId}` });
    }
  }
}

/** The CA of an ottca enrollment must exist; `field` names where its id came from. */
export async function requireCa(replica: Replica, caId: unknown, field: string): Promise<Entity> {
  if (typeof caId !== 'string' || caId === '') throw fieldError(field, caId ?? null, `${field} is required for method ottca`);
  const ca = await replica.get('cas', caId);
  if (!ca) throw fieldError(field, caId, 'no ca found with the given id');
  return ca;
}

/** An expiry must be a time in the future (create, refresh, re-enroll). */
export function requireFuture(expiresAt: unknown, field = 'expiresAt'): string {
  if (expiresAt === undefined || expiresAt === null) throw fieldError(field, null, `${field} is required`);
  const value = String(checkValue(field, { type: 'datetime', required: true }, expiresAt));
  if (Date.parse(value) <= Date.now()) throw fieldError(field, expiresAt, `${field} must be in the future`);
  return value;
}
