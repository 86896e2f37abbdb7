// Wire shapes built from an identity's posture state: the management `posture-data` view and
// the `services` list a posture response answers after a wake / unlock event (upstream's
// GetEndpointStateChangeAffectedServices, limited to policies that select the identity).

import {
  MFA_GRACE_SECONDS,
  mfaSpecOf,
  passedOnUnlock,
  passedOnWake,
  type PostureData,
  type ReportBase,
} from '../../domain/posture/index.js';
import type { AffectedService } from '../../protocol/v1/identity-commands.js';
import type { PostureReads } from '../../query/posture-reads.js';

/** Go's zero time, which upstream reports for posture data never received (the spec has a
 * date-time string, never null). */
const NEVER = '0001-01-01T00:00:00.000Z';

const base = (report: ReportBase | null) => ({
  postureCheckId: report?.postureCheckId ?? '',
  timedOut: false,
  lastUpdatedAt: report?.lastUpdatedAt ?? NEVER,
});

const ALWAYS_PROMPT = mfaSpecOf({ promptOnWake: true, promptOnUnlock: true });

/** `GET /identities/{id}/posture-data` (upstream postureData). */
export function postureDataView(data: PostureData, now: number): Record<string, unknown> {
  const apiSessionPostureData: Record<string, unknown> = {};
  for (const [id, session] of Object.entries(data.apiSessions)) {
    apiSessionPostureData[id] = {
      mfa: {
        apiSessionId: id,
        passedMfa: session.passedMfaAt !== null,
        passedAt: session.passedMfaAt,
        passedOnWake: passedOnWake(ALWAYS_PROMPT, session, now),
        passedOnUnlock: passedOnUnlock(ALWAYS_PROMPT, session, now),
      },
      endpointState: { wokenAt: session.wokenAt, unlockedAt: session.unlockedAt },
      sdkInfo: session.sdkInfo,
    };
  }
  return {
    os: { ...base(data.os), type: data.os?.type ?? '', version: data.os?.version ?? '', build: data.os?.build ?? '' },
    mac: { ...base(data.mac), addresses: data.mac?.addresses ?? [] },
    domain: { ...base(data.domain), domain: data.domain?.domain ?? '' },
    processes: data.processes.map((p) => ({
      ...base(p),
      path: p.path,
      isRunning: p.isRunning,
      binaryHash: p.hash,
      signerFingerprints: p.signerFingerprints,
    })),
    apiSessionPostureData,
  };
}

export type { AffectedService };

/**
 * After a wake / unlock: the services behind MFA checks that prompt on that event and whose
 * remaining time is longer than the grace (or unlimited), each with the lowest such timeout.
 */
export async function endpointStateServices(
  reads: PostureReads,
  identityId: string,
  passedMfaAt: string | null,
  event: { woken: boolean; unlocked: boolean },
  now: number,
): Promise<AffectedService[]> {
  if (!passedMfaAt || (!event.woken && !event.unlocked)) return [];
  const sinceMfa = Math.trunc((now - Date.parse(passedMfaAt)) / 1000);
  const mine = new Set(await reads.reader.policiesOf('identities', identityId, 'service-policies'));
  const byService = new Map<string, AffectedService>();
  for (const check of await reads.records('posture-checks', 'typeId', 'MFA')) {
    const spec = mfaSpecOf(check);
    if (!((spec.promptOnUnlock && event.unlocked) || (spec.promptOnWake && event.woken))) continue;
    if (spec.timeoutSeconds !== -1 && spec.timeoutSeconds - sinceMfa <= MFA_GRACE_SECONDS) continue;
    for (const policyId of await reads.reader.policiesOf('posture-checks', check.id, 'service-policies')) {
      if (!mine.has(policyId)) continue;
      for (const serviceId of await reads.reader.membersOf('service-policies', policyId, 'services')) {
        const known = byService.get(serviceId);
        if (known && known.timeout <= spec.timeoutSeconds) continue;
        const service = known ?? (await reads.replica.get('services', serviceId));
        if (!service) continue;
        byService.set(serviceId, { id: serviceId, name: String(service.name), postureQueryType: 'MFA', timeout: spec.timeoutSeconds, timeoutRemaining: MFA_GRACE_SECONDS });
      }
    }
  }
  return [...byService.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
