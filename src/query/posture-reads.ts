// Replica reads the posture feature makes: the service policies granting an identity a service
// with their posture checks (from the access index), an identity's service and API sessions,
// and the evaluation snapshot that joins volatile posture data with the API-session records.

import type { Entity } from '../domain/commands.js';
import type { PolicyChecks, PostureData, SdkInfo } from '../domain/posture/index.js';
import { AccessReader } from '../store/access-reader.js';
import type { Replica } from '../store/replica.js';

/** An identity's evaluation input, as its actor answers `postureSnapshot`. */
export interface PostureSnapshot {
  data: PostureData;
  /** False when no posture check exists at all (client posture queries are then "dummy"). */
  anyChecksExist: boolean;
  /** The actor's clock when the snapshot was taken (epoch ms). */
  now: number;
}

/** An identity's volatile posture state as the snapshot reads it (IdentityPosture provides it). */
export interface PostureState {
  readonly data: PostureData;
  /** Drops the entries of API sessions not in `existing`. */
  keepApiSessions(existing: ReadonlySet<string>): void;
}

export class PostureReads {
  readonly reader: AccessReader;

  constructor(readonly replica: Replica) {
    this.reader = new AccessReader(replica);
  }

  /** True when at least one posture check exists (else client posture queries are "dummy"). */
  anyChecksExist(): boolean {
    return this.replica.count('posture-checks') > 0;
  }

  /** The policies (of `type`, or both) granting the identity the service, each with its checks. */
  async policyChecks(identityId: string, serviceId: string, type?: 'Dial' | 'Bind'): Promise<PolicyChecks[]> {
    const out: PolicyChecks[] = [];
    for (const policy of await this.reader.grantingPolicies(identityId, serviceId, type)) {
      const checkIds = await this.reader.membersOf('service-policies', policy.id, 'posture-checks');
      const checks = (await this.replica.getMany('posture-checks', checkIds)).filter((c): c is Entity => c !== undefined);
      out.push({ policyId: policy.id, policyName: String(policy.name ?? ''), policyType: policy.type === 'Bind' ? 'Bind' : 'Dial', checks });
    }
    return out;
  }

  async records(kind: string, field: string, value: string): Promise<Entity[]> {
    const ids: string[] = [];
    for await (const id of this.replica.idsWhere(kind, field, value)) ids.push(id);
    return (await this.replica.getMany(kind, ids)).filter((r): r is Entity => r !== undefined);
  }

  /** The identity's service sessions. */
  sessionsOf(identityId: string): Promise<Entity[]> {
    return this.records('sessions', 'identityId', identityId);
  }

  /**
   * The data evaluation reads: a copy of the volatile data whose API-session entries are the
   * identity's live API sessions, each with `passedMfaAt` from its record (set by MFA) and
   * sdkInfo from the identity. Entries of API sessions that are gone are dropped from state.
   */
  async snapshot(state: PostureState, identityId: string): Promise<PostureData> {
    const identity = await this.replica.get('identities', identityId);
    const apiSessions = await this.records('api-sessions', 'identityId', identityId);
    state.keepApiSessions(new Set(apiSessions.map((s) => s.id)));
    const data = structuredClone(state.data);
    const sdkInfo = sdkInfoOf(identity?.sdkInfo);
    data.apiSessions = {};
    for (const session of apiSessions) {
      const volatile = state.data.apiSessions[session.id];
      data.apiSessions[session.id] = {
        passedMfaAt: typeof session.mfaPassedAt === 'string' ? session.mfaPassedAt : null,
        wokenAt: volatile?.wokenAt ?? null,
        unlockedAt: volatile?.unlockedAt ?? null,
        sdkInfo: volatile?.sdkInfo ?? sdkInfo,
      };
    }
    return data;
  }
}

function sdkInfoOf(value: unknown): SdkInfo | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return Object.keys(value).length === 0 ? null : (value as SdkInfo);
}
