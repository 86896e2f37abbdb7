// Enforcement inside an identity actor: evaluates the identity's service sessions against their
// granting policies, revokes (deletes) those that no longer pass, announces the revocations and
// arms the MFA timer for the next moment a passing session would start failing.

import type { Entity, Op } from '../../domain/commands.js';
import { evaluateAccess, mfaNextChange, mfaSpecOf, type PolicyChecks, type PostureData } from '../../domain/posture/index.js';
import type { Proposer } from '../proposer.js';
import type { IdentityPosture } from './identity-posture.js';
import type { PostureReads } from '../../query/posture-reads.js';
import { tracePosture, type PostureRuntime, type RevocationEvent, type RevokedSession } from './posture-runtime.js';

/** Everything a posture operation of one identity actor works with. */
export interface PostureContext {
  identityId: string;
  state: IdentityPosture;
  reads: PostureReads;
  proposer: Proposer;
  runtime: PostureRuntime;
}

/** Evaluates every service session of the identity; returns the revoked ones. */
export async function enforce(ctx: PostureContext, reason: RevocationEvent['reason']): Promise<RevokedSession[]> {
  const now = ctx.runtime.clock.now();
  const data = await ctx.reads.snapshot(ctx.state, ctx.identityId);
  const failing: Entity[] = [];
  let next: number | undefined;
  for (const session of await ctx.reads.sessionsOf(ctx.identityId)) {
    const type = session.type === 'Bind' ? 'Bind' : 'Dial';
    const policies = await ctx.reads.policyChecks(ctx.identityId, String(session.serviceId), type);
    const apiSessionId = String(session.apiSessionId);
    const decision = evaluateAccess(policies, data, apiSessionId, now);
    if (!decision.passed) {
      failing.push(session);
      continue;
    }
    const change = sessionChange(policies, decision.passingPolicyIds, data, apiSessionId, now);
    if (change !== undefined && (next === undefined || change < next)) next = change;
  }
  const revoked = await revoke(ctx, failing, reason);
  arm(ctx, next, now);
  return revoked;
}

/**
 * When a passing session would start failing without any new event: once every passing policy
 * has failed, each at the earliest change of its MFA checks. Undefined when some passing policy
 * never changes by itself.
 */
function sessionChange(policies: readonly PolicyChecks[], passing: readonly string[], data: PostureData, apiSessionId: string, now: number): number | undefined {
  let latest = -Infinity;
  for (const policy of policies) {
    if (!passing.includes(policy.policyId)) continue;
    let earliest: number | undefined;
    for (const check of policy.checks) {
      if (check.typeId !== 'MFA') continue;
      const at = mfaNextChange(mfaSpecOf(check), data.apiSessions[apiSessionId], now);
      if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
    }
    if (earliest === undefined) return undefined;
    latest = Math.max(latest, earliest);
  }
  return latest === -Infinity ? undefined : latest;
}

async function revoke(ctx: PostureContext, sessions: Entity[], reason: RevocationEvent['reason']): Promise<RevokedSession[]> {
  if (sessions.length === 0) return [];
  const ops: Op[] = sessions.map((s) => ({ op: 'delete', kind: 'sessions', id: s.id, ifExists: true, system: true }));
  await ctx.proposer.propose(ops);
  const revoked = sessions.map((s) => ({ id: s.id, serviceId: String(s.serviceId), apiSessionId: String(s.apiSessionId), type: String(s.type) }));
  tracePosture(ctx.runtime, ctx.identityId, 'sessions revoked', () => ({ reason, sessions: revoked }));
  ctx.runtime.observer?.count?.('session', 'revoked', revoked.length);
  ctx.runtime.publishRevocation?.({ identityId: ctx.identityId, sessions: revoked, reason });
  return revoked;
}

/** Arms the timer that re-runs enforcement through the actor's mailbox (needs `tell`). */
function arm(ctx: PostureContext, at: number | undefined, now: number): void {
  const { runtime, state, identityId } = ctx;
  if (!runtime.tell) return;
  const tell = runtime.tell;
  state.schedule(runtime.timers, at, now, () => {
    tell(identityId, { op: 'postureTimer' }).catch(() => undefined);
  });
}
