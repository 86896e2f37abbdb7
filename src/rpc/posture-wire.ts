// The posture stream's messages as proto-loader presents them (camelCase, enums as names,
// oneof names in `body` / `update`), and the mapping between a wire PostureResponse and the
// REST posture-response shape that both the client API and the stream submit.

/** weft.v1.PostureResponse */
export interface WirePostureResponse {
  id?: string;
  body?: 'os' | 'mac' | 'domain' | 'process' | 'endpointState';
  os?: { type?: string; version?: string; build?: string };
  mac?: { macAddresses?: string[] };
  domain?: { domain?: string };
  process?: { path?: string; isRunning?: boolean; hash?: string; signerFingerprints?: string[] };
  endpointState?: { woken?: boolean; unlocked?: boolean };
}

/** weft.v1.PostureEvent */
export interface WirePostureEvent {
  eventId?: string;
  identityId?: string;
  apiSessionId?: string;
  responses?: WirePostureResponse[];
}

export interface WireAffectedService {
  id: string;
  name: string;
  postureQueryType: string;
  timeout: number | string;
  timeoutRemaining: number | string;
}

export interface WirePostureAck {
  eventId: string;
  identityId: string;
  status: 'STATUS_UNSPECIFIED' | 'STATUS_ACCEPTED' | 'STATUS_REJECTED';
  errorCode?: string;
  errorMessage?: string;
  services: WireAffectedService[];
  revokedSessionIds: string[];
}

export interface WireAccessChange {
  identityId: string;
  reason: 'REASON_UNSPECIFIED' | 'REASON_POSTURE' | 'REASON_TIMER' | 'REASON_POLICY';
  revoked: { sessionId: string; serviceId: string; apiSessionId: string; type: string }[];
}

/** weft.v1.PostureUpdate */
export interface WirePostureUpdate {
  update?: 'ack' | 'accessChange';
  ack?: WirePostureAck;
  accessChange?: WireAccessChange;
}

/** A wire response as the REST body (`{id, typeId, ...}`); an empty oneof has no typeId. */
export function fromWireResponse(r: WirePostureResponse): Record<string, unknown> {
  const id = r.id ?? '';
  switch (r.body) {
    case 'os':
      return { id, typeId: 'OS', type: r.os?.type ?? '', version: r.os?.version ?? '', build: r.os?.build ?? '' };
    case 'mac':
      return { id, typeId: 'MAC', macAddresses: r.mac?.macAddresses ?? [] };
    case 'domain':
      return { id, typeId: 'DOMAIN', domain: r.domain?.domain ?? '' };
    case 'process':
      return {
        id,
        typeId: 'PROCESS',
        path: r.process?.path ?? '',
        isRunning: r.process?.isRunning ?? false,
        hash: r.process?.hash ?? '',
        signerFingerprints: r.process?.signerFingerprints ?? [],
      };
    case 'endpointState':
      return { id, typeId: 'ENDPOINT_STATE', woken: r.endpointState?.woken ?? false, unlocked: r.endpointState?.unlocked ?? false };
    default:
      return { id };
  }
}

/** A REST posture response body as a wire response (for routers, benchmarks and tests). */
export function toWireResponse(body: Record<string, unknown>): WirePostureResponse {
  const id = String(body.id ?? '');
  switch (body.typeId) {
    case 'OS':
      return { id, os: { type: String(body.type ?? ''), version: String(body.version ?? ''), build: String(body.build ?? '') } };
    case 'MAC':
      return { id, mac: { macAddresses: (body.macAddresses as string[] | undefined) ?? [] } };
    case 'DOMAIN':
      return { id, domain: { domain: String(body.domain ?? '') } };
    case 'PROCESS':
      return {
        id,
        process: {
          path: String(body.path ?? ''),
          isRunning: body.isRunning === true,
          hash: String(body.hash ?? ''),
          signerFingerprints: (body.signerFingerprints as string[] | undefined) ?? [],
        },
      };
    case 'ENDPOINT_STATE':
      return { id, endpointState: { woken: body.woken === true, unlocked: body.unlocked === true } };
    default:
      return { id };
  }
}
