// Posture data an endpoint reports (BEHAVIOR.md §3.4): the shapes kept per identity and how a
// posture response changes them. Pure data and functions; times are ISO-8601 strings given by
// the caller, so the same data crosses the bus and the worker pool unchanged.

/** SDK details a client gave at login (used by MFA `ignoreLegacyEndpoints`). */
export interface SdkInfo {
  type?: string;
  version?: string;
  appId?: string;
  appVersion?: string;
  branch?: string;
  revision?: string;
}

/** What every reported slot records: which check id it answered and when. */
export interface ReportBase {
  postureCheckId: string;
  lastUpdatedAt: string;
}

export interface OsReport extends ReportBase {
  type: string;
  version: string;
  build: string;
}

export interface MacReport extends ReportBase {
  /** Normalised: lowercase hex without separators. */
  addresses: string[];
}

export interface DomainReport extends ReportBase {
  domain: string;
}

export interface ProcessReport extends ReportBase {
  path: string;
  isRunning: boolean;
  /** Normalised: lowercase hex, every non-hex character removed. */
  hash: string;
  signerFingerprints: string[];
}

/** Per API session: when MFA was passed (from the api-session record) and wake / unlock events. */
export interface ApiSessionPosture {
  passedMfaAt: string | null;
  wokenAt: string | null;
  unlockedAt: string | null;
  sdkInfo: SdkInfo | null;
}

/**
 * One identity's posture data: one OS, MAC and DOMAIN slot each (last write wins), process
 * reports by posture-check id plus the latest report per exact path, and API-session data.
 */
export interface PostureData {
  os: OsReport | null;
  mac: MacReport | null;
  domain: DomainReport | null;
  processes: ProcessReport[];
  processByPath: Record<string, ProcessReport>;
  apiSessions: Record<string, ApiSessionPosture>;
}

/** A validated posture response, as `POST /posture-response` takes it (`id` = posture check id). */
export type PostureResponse =
  | { id: string; typeId: 'OS'; type: string; version: string; build: string }
  | { id: string; typeId: 'MAC'; macAddresses: string[] }
  | { id: string; typeId: 'DOMAIN'; domain: string }
  | { id: string; typeId: 'PROCESS'; path: string; isRunning: boolean; hash: string; signerFingerprints: string[] }
  | { id: string; typeId: 'ENDPOINT_STATE'; woken: boolean; unlocked: boolean };

export const POSTURE_RESPONSE_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'ENDPOINT_STATE'] as const;

export function emptyPostureData(): PostureData {
  return { os: null, mac: null, domain: null, processes: [], processByPath: {}, apiSessions: {} };
}

export function emptyApiSessionPosture(): ApiSessionPosture {
  return { passedMfaAt: null, wokenAt: null, unlockedAt: null, sdkInfo: null };
}

/** Upstream's CleanHexString: lowercase, every character that is not a hex digit removed. */
export function cleanHex(value: string): string {
  return value.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/**
 * Applies one response to `data` (mutated and returned). ENDPOINT_STATE applies to the given
 * API sessions: a woken / unlocked flag stamps `now` on each.
 */
export function applyPostureResponse(data: PostureData, response: PostureResponse, apiSessionIds: readonly string[], now: string): PostureData {
  const base = { postureCheckId: response.id, lastUpdatedAt: now };
  switch (response.typeId) {
    case 'OS':
      data.os = { ...base, type: response.type, version: response.version, build: response.build };
      break;
    case 'MAC':
      data.mac = { ...base, addresses: response.macAddresses.map(cleanHex) };
      break;
    case 'DOMAIN':
      data.domain = { ...base, domain: response.domain };
      break;
    case 'PROCESS':
      applyProcess(data, {
        ...base,
        path: response.path,
        isRunning: response.isRunning,
        hash: cleanHex(response.hash),
        signerFingerprints: response.signerFingerprints.map(cleanHex),
      });
      break;
    case 'ENDPOINT_STATE':
      for (const id of apiSessionIds) {
        const session = (data.apiSessions[id] ??= emptyApiSessionPosture());
        if (response.woken) session.wokenAt = now;
        if (response.unlocked) session.unlockedAt = now;
      }
      break;
  }
  return data;
}

/** One report per posture-check id (replaced in place), and the latest per exact path. */
function applyProcess(data: PostureData, report: ProcessReport): void {
  const index = data.processes.findIndex((p) => p.postureCheckId === report.postureCheckId);
  if (index >= 0) data.processes[index] = report;
  else data.processes.push(report);
  if (report.path !== '') data.processByPath[report.path] = report;
}
