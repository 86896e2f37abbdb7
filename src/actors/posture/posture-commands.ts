// The posture operations of an identity actor (called from its `handle`, so they run in its
// mailbox): posture submissions from REST and router streams, service sessions, MFA timers,
// bulk re-evaluation verdicts and the management views of the volatile state.

import { parsePostureResponse, parsePostureResponses, type PostureResponse } from '../../domain/posture/index.js';
import { unknownOperation } from '../../protocol/v1/message-fields.js';
import { ApiError } from '../../errors.js';
import type { Replica } from '../../store/replica.js';
import type { ActorMessage } from '../actor-host.js';
import type { Proposer } from '../proposer.js';
import { IdentityPosture, POSTURE_FEATURE } from './identity-posture.js';
import { enforce, type PostureContext } from './posture-enforcer.js';
import { PostureReads } from '../../query/posture-reads.js';
import { postureRuntime, type PostureRuntime } from './posture-runtime.js';
import { endpointStateServices, postureDataView } from './posture-views.js';
import type { AffectedService, PostureSubmitResult } from '../../protocol/v1/identity-commands.js';
import { deleteSession, grantSession } from './session-grant.js';

/** The identity actor as the posture operations see it. */
export interface PostureHost {
  readonly id: string;
  readonly features: Map<string, unknown>;
  readonly deps: { replica: Replica; proposer: Proposer; posture?: PostureRuntime };
}

/** What a posture submission answers: the REST `services` list and what it revoked. */
export type { PostureSubmitResult };

export async function handlePostureCommand(host: PostureHost, msg: ActorMessage): Promise<unknown> {
  const identity = await host.deps.replica.get('identities', host.id);
  if (!identity) {
    forget(host);
    throw new ApiError('NOT_FOUND');
  }
  switch (msg.op) {
    case 'postureResponses':
      return submit(context(host, true), msg);
    case 'postureSnapshot': {
      const ctx = context(host, false);
      return { data: await ctx.reads.snapshot(ctx.state, host.id), anyChecksExist: ctx.reads.anyChecksExist(), now: ctx.runtime.clock.now() };
    }
    case 'postureData': {
      const ctx = context(host, false);
      return postureDataView(await ctx.reads.snapshot(ctx.state, host.id), ctx.runtime.clock.now());
    }
    case 'failedServiceRequests':
      return context(host, false).state.failedRequests();
    case 'postureTimer': {
      const ctx = context(host, true);
      ctx.state.fired();
      return { revokedSessionIds: (await enforce(ctx, 'timer')).map((s) => s.id) };
    }
    case 'postureReevaluate':
      return { revokedSessionIds: (await enforce(context(host, true), 'policy')).map((s) => s.id) };
    case 'createSession':
      return grantSession(context(host, true), { apiSessionId: String(msg.apiSessionId ?? ''), body: msg.body });
    case 'deleteSession':
      return deleteSession(context(host, false), String(msg.sessionId ?? ''), msg.isAdmin === true);
    case 'postureForget':
      forget(host);
      return {};
    case 'postureForget':
      forget(host);
      return {};
    default:
      throw unknownOperation('posture', msg.op);
  }
}

/** Drops the volatile state (the identity is gone). */
export function forget(host: PostureHost): void {
  const state = host.features.get(POSTURE_FEATURE) as IdentityPosture | undefined;
  if (state) state.cancel(postureRuntime(host.deps.posture).timers);
  host.features.delete(POSTURE_FEATURE);
}

/** The operation context; `keep` stores new state on the actor (reads use a throwaway). */
function context(host: PostureHost, keep: boolean): PostureContext {
  let state = host.features.get(POSTURE_FEATURE) as IdentityPosture | undefined;
  if (!state) {
    state = new IdentityPosture();
    if (keep) host.features.set(POSTURE_FEATURE, state);
  }
  return {
    identityId: host.id,
    state,
    reads: new PostureReads(host.deps.replica),
    proposer: host.deps.proposer,
    runtime: postureRuntime(host.deps.posture),
  };
}

/**
 * Applies responses, re-evaluates the identity's sessions and answers the services list. The
 * API session is the caller's (REST) or the event's (gRPC); without one, ENDPOINT_STATE applies
 * to every API session of the identity.
 */
async function submit(ctx: PostureContext, msg: ActorMessage): Promise<PostureSubmitResult> {
  const started = ctx.runtime.clock.now();
  const responses = msg.single === true ? [parsePostureResponse(msg.responses)] : parsePostureResponses(msg.responses);
  const apiSessionId = typeof msg.apiSessionId === 'string' && msg.apiSessionId !== '' ? msg.apiSessionId : undefined;
  const apiSessionIds = apiSessionId ? [apiSessionId] : (await ctx.reads.records('api-sessions', 'identityId', ctx.identityId)).map((s) => s.id);
  ctx.state.apply(responses, apiSessionIds, new Date(started).toISOString());
  const revoked = await enforce(ctx, 'posture');
  const services = apiSessionId ? await wakeServices(ctx, apiSessionId, responses, started) : [];
  for (const response of responses) ctx.runtime.observer?.count?.(response.typeId, 'received');
  ctx.runtime.observer?.onEvent?.({
    identityId: ctx.identityId,
    source: String(msg.source ?? 'rest'),
    types: responses.map((r) => r.typeId),
    revoked: revoked.length,
    ms: ctx.runtime.clock.now() - started,
  });
  return { services, revokedSessionIds: revoked.map((s) => s.id) };
}

async function wakeServices(ctx: PostureContext, apiSessionId: string, responses: PostureResponse[], now: number): Promise<AffectedService[]> {
  const event = { woken: false, unlocked: false };
  for (const r of responses) {
    if (r.typeId !== 'ENDPOINT_STATE') continue;
    event.woken ||= r.woken;
    event.unlocked ||= r.unlocked;
  }
  if (!event.woken && !event.unlocked) return [];
  const apiSession = await ctx.reads.replica.get('api-sessions', apiSessionId);
  const passedMfaAt = typeof apiSession?.mfaPassedAt === 'string' ? apiSession.mfaPassedAt : null;
  return endpointStateServices(ctx.reads, ctx.identityId, passedMfaAt, event, now);
}
