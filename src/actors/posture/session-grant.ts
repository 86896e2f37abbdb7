// Granting and deleting service sessions in the identity actor (client `POST /sessions`,
// `DELETE /sessions/{id}`): visibility, posture (409 INVALID_POSTURE with a failed-service-request
// recorded), a shared edge router (400 NO_EDGE_ROUTERS_AVAILABLE), then the session record.

import { randomUUID } from 'node:crypto';
import type { Entity } from '../../domain/commands.js';
import { newId } from '../../domain/ids.js';
import { evaluateAccess, failedServiceRequest, invalidPostureCause } from '../../domain/posture/index.js';
import { ApiError, fieldError } from '../../errors.js';
import { enforce, type PostureContext } from './posture-enforcer.js';
import { tracePosture } from './posture-runtime.js';

export interface GrantRequest {
  apiSessionId: string;
  body: unknown;
}

/** Creates (or returns the existing) session of the API session for the service and type. */
export async function grantSession(ctx: PostureContext, request: GrantRequest): Promise<{ id: string }> {
  const { serviceId, type } = parseBody(request.body);
  const { replica, reader } = ctx.reads;
  const apiSession = await replica.get('api-sessions', request.apiSessionId);
  if (!apiSession || apiSession.identityId !== ctx.identityId) throw new ApiError('UNAUTHORIZED');
  const service = await replica.get('services', serviceId);
  const permissions = service ? await reader.permissions(ctx.identityId, serviceId) : ['Invalid'];
  if (!service || permissions.includes('Invalid')) throw new ApiError('NOT_FOUND');
  if (!permissions.includes(type)) throw fieldError('serviceId', serviceId, 'service not found');

  const existing = await findExisting(ctx, request.apiSessionId, serviceId, type);
  if (existing) return { id: existing.id };

  const now = ctx.runtime.clock.now();
  const policies = await ctx.reads.policyChecks(ctx.identityId, serviceId, type);
  const data = await ctx.reads.snapshot(ctx.state, ctx.identityId);
  const decision = evaluateAccess(policies, data, request.apiSessionId, now);
  tracePosture(ctx.runtime, ctx.identityId, 'session request evaluated', () => ({ serviceId, type, decision }));
  if (!decision.passed) {
    const when = new Date(now).toISOString();
    ctx.state.recordFailure(
      failedServiceRequest(decision, { when, apiSessionId: request.apiSessionId, serviceId, serviceName: String(service.name), sessionType: type }),
    );
    ctx.runtime.observer?.count?.('session', 'refused');
    throw new ApiError('INVALID_POSTURE', invalidPostureCause(decision));
  }
  if (!(await sharesEdgeRouter(ctx, serviceId))) throw new ApiError('NO_EDGE_ROUTERS_AVAILABLE');

  const at = new Date().toISOString();
  const record: Entity = {
    id: newId(),
    createdAt: at,
    updatedAt: at,
    tags: tagsOf(request.body),
    apiSessionId: request.apiSessionId,
    identityId: ctx.identityId,
    serviceId,
    type,
    token: randomUUID(),
    servicePolicies: decision.passingPolicyIds,
  };
  await ctx.proposer.propose([{ op: 'create', kind: 'sessions', record }], at);
  ctx.runtime.observer?.count?.('session', 'granted');
  // Re-arms the MFA timer now that this session depends on the checks.
  await enforce(ctx, 'posture');
  return { id: record.id };
}

/** The caller's own session (any session for an admin); 404 otherwise. */
export async function deleteSession(ctx: PostureContext, sessionId: string, isAdmin: boolean): Promise<Record<string, never>> {
  const session = await ctx.reads.replica.get('sessions', sessionId);
  if (!session || (session.identityId !== ctx.identityId && !isAdmin)) throw new ApiError('NOT_FOUND');
  await ctx.proposer.propose([{ op: 'delete', kind: 'sessions', id: sessionId, ifExists: true }]);
  return {};
}

function parseBody(body: unknown): { serviceId: string; type: 'Dial' | 'Bind' } {
  const input = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const serviceId = input.serviceId;
  if (typeof serviceId !== 'string' || serviceId === '') throw fieldError('serviceId', serviceId ?? null, 'serviceId is required');
  const type = input.type ?? 'Dial';
  if (type !== 'Dial' && type !== 'Bind') throw fieldError('type', type, 'type must be one of Dial, Bind');
  return { serviceId, type };
}

function tagsOf(body: unknown): Record<string, unknown> {
  const tags = (body as { tags?: unknown } | null)?.tags;
  return typeof tags === 'object' && tags !== null && !Array.isArray(tags) ? (tags as Record<string, unknown>) : {};
}

/** Upstream reuses the session of an API session for the same service and type. */
async function findExisting(ctx: PostureContext, apiSessionId: string, serviceId: string, type: string): Promise<Entity | undefined> {
  const sessions = await ctx.reads.records('sessions', 'apiSessionId', apiSessionId);
  return sessions.find((s) => s.serviceId === serviceId && s.type === type);
}

/** Some edge router is both the identity's (edge router policies) and the service's. */
async function sharesEdgeRouter(ctx: PostureContext, serviceId: string): Promise<boolean> {
  const { reader } = ctx.reads;
  const mine = await reader.reachable('identities', ctx.identityId, 'edge-router-policies', 'edge-routers');
  if (mine.size === 0) return false;
  const theirs = await reader.reachable('services', serviceId, 'service-edge-router-policies', 'edge-routers');
  for (const id of theirs) if (mine.has(id)) return true;
  return false;
}
