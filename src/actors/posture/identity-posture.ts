// The volatile posture state of one identity, kept by its actor in `features.get('posture')`:
// reported posture data, wake / unlock events per API session, the last 50 failed service
// requests and the pending MFA timer. Never written to the log (as upstream, lost on restart).

import {
  appendFailedRequest,
  applyPostureResponse,
  emptyPostureData,
  type FailedServiceRequest,
  type PostureData,
  type PostureResponse,
} from '../../domain/posture/index.js';
import type { Timers } from './posture-runtime.js';

/** The feature key of the identity actor's volatile state map. */
export const POSTURE_FEATURE = 'posture';

export class IdentityPosture {
  readonly data: PostureData = emptyPostureData();
  private readonly failed: FailedServiceRequest[] = [];
  private timer?: { handle: unknown; at: number };

  /** Applies responses in order; ENDPOINT_STATE goes to the given API sessions. */
  apply(responses: readonly PostureResponse[], apiSessionIds: readonly string[], now: string): void {
    for (const response of responses) applyPostureResponse(this.data, response, apiSessionIds, now);
  }

  recordFailure(entry: FailedServiceRequest): void {
    appendFailedRequest(this.failed, entry);
  }

  /** Oldest first, at most 50. */
  failedRequests(): FailedServiceRequest[] {
    return [...this.failed];
  }

  /** Drops the data of API sessions that no longer exist (upstream removes it on delete). */
  keepApiSessions(existing: ReadonlySet<string>): void {
    for (const id of Object.keys(this.data.apiSessions)) if (!existing.has(id)) delete this.data.apiSessions[id];
  }

  /** Arms the MFA timer for `at` (epoch ms), replacing an earlier one; none when undefined. */
  schedule(timers: Timers, at: number | undefined, now: number, fire: () => void): void {
    if (this.timer && this.timer.at === at) return;
    this.cancel(timers);
    if (at === undefined) return;
    this.timer = { at, handle: timers.set(fire, Math.max(0, at - now)) };
  }

  /** When the MFA timer will fire (epoch ms), if armed. */
  scheduledAt(): number | undefined {
    return this.timer?.at;
  }

  cancel(timers: Timers): void {
    if (this.timer) timers.clear(this.timer.handle);
    this.timer = undefined;
  }

  /** The timer fired: it is no longer armed. */
  fired(): void {
    this.timer = undefined;
  }
}
