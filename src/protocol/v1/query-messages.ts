// The query family (`weft.v1.query.<node>`): every read the gateway asks of its node's query
// handler, as one discriminated union on `op`, the reply of each, and a reader per op that
// checks a received message. Gateway and query handler both import these types; neither
// writes the shapes again.

import type { Protocol } from './handler-table.js';
import { kindName, type KindName } from './kind-names.js';
import { obj, optBool, optObj, optStr, optStrList, str, unknownOperation, type Fields } from './message-fields.js';

/** The query parameters of a list request, as the gateway received them. */
export interface ListParams {
  filter?: string;
  sort?: string;
  limit?: string;
  offset?: string;
  /** Role-aware lists: `#attr` / `@id` selectors and their semantic. */
  roleFilter?: string[];
  roleSemantic?: string;
  /** `/identities/{id}/services`: dial or bind. */
  policyType?: string;
}

/** Who is reading, for fields that depend on the caller (e.g. a service's permissions). */
export interface Viewer {
  identityId?: string;
  /** `configTypes` requested for service `config` maps (ids, or 'all'). */
  configTypes?: string[];
}

/** A list page: the wire entities and the envelope's meta (pagination, filterable fields). */
export interface ListReply {
  data: unknown;
  meta: Record<string, unknown>;
}

/** An unpaged list asked with `stream`: the cursor its items are pulled from (`listNext`), and
 * the envelope's meta without totalCount (known only at the end). */
export interface ListCursorReply {
  cursor: string;
  meta: { pagination: Record<string, unknown> } & Record<string, unknown>;
}

/** One pull of a list cursor: `items` is JSON text of the next presented items, comma-separated
 * (empty when this slice found none); `total` counts every match so far, offset included. */
export interface ListChunk {
  items: string;
  done: boolean;
  total: number;
}

/** Who the caller of a session token is (the `resolveSession` reply). */
export interface SessionInfo {
  apiSessionId: string;
  identityId: string;
  identityName: string;
  isAdmin: boolean;
  expiresAt: string;
  expirationSeconds: number;
  /** MFA state of the session (required and not complete = partially authenticated). */
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  /** The ext-jwt signer whose token every request must carry (auth policy
   * `secondary.requireExtJwtSigner`), or null; the gateway checks the token. */
  requiredExtJwtSigner: string | null;
}

/** The related lists the config query answers. */
export type ConfigQueryName = 'configTypeConfigs' | 'configServices' | 'serviceConfigs' | 'identityServiceConfigs';

/** The `findCertIdentity` reply: an authenticator's identity, or the CA's external-id match. */
export type CertIdentity = { identityId: string; authenticatorId: string } | { identityId: string | null; externalId: string; caId: string };

/** An external JWT signer as login and the secondary factor need it (`extJwtSigner` reply). */
export interface ExtJwtSignerInfo {
  id: string;
  enabled: boolean;
  certPem: string | null;
  jwksEndpoint: string | null;
  kid: string | null;
  fingerprint: string | null;
  audience: string;
  claimsProperty: string;
  useExternalId: boolean;
  updatedAt: string;
}

/** Who holds an enrollment token, and by which method it enrolls (`findEnrollment` reply). */
export interface EnrollmentHolder {
  kind: 'identities' | 'edge-routers' | 'routers';
  id: string;
  method: string;
}

/** Posture state the gateway fetched from the identity actor for `clientServices`. */
export type PostureSnapshotField = Record<string, unknown>;

type Listing = { params?: ListParams; viewer?: Viewer };

/** `stream`: an unpaged list answers a ListCursorReply instead of the whole list (a page is
 * answered as it is). */
type Streamable = { stream?: boolean };

/** Every query of the family; `ops.*` and `cluster.*` go to node-local features (see DelegatedQuery). */
export type QueryRequest =
  | ({ op: 'get'; kind: KindName; id: string } & Pick<Listing, 'viewer'>)
  | ({ op: 'list'; kind: KindName } & Listing & Streamable)
  | ({ op: 'related'; parent: { kind: KindName; id: string }; kind: KindName } & Listing & Streamable)
  | { op: 'listNext'; cursor: string }
  | { op: 'listClose'; cursor: string }
  | ({ op: 'clientServices'; identityId: string; apiSessionId?: string; id?: string; posture: PostureSnapshotField } & Listing & Streamable)
  | { op: 'clientServiceVisible'; identityId: string; id: string }
  | ({ op: 'clientSessions'; identityId: string; isAdmin: boolean; id?: string } & Listing & Streamable)
  | ({ op: 'configQuery'; query: ConfigQueryName; id: string } & Listing & Streamable)
  | { op: 'policyAdvice'; identityId: string; serviceId: string }
  | { op: 'resolveSession'; token: string }
  | { op: 'currentSession'; token: string; extJwtPassed: boolean }
  | { op: 'mfaDetail'; identityId: string }
  | { op: 'mfaRecoveryCodes'; identityId: string; code?: string }
  | { op: 'mfaProvisioningUrl'; identityId: string }
  | { op: 'extJwtSigner'; issuer: string }
  | { op: 'extJwtIdentity'; value: string; useExternalId: boolean }
  | { op: 'findEnrollment'; token: string }
  | { op: 'findCertIdentity'; pems: string[]; fingerprint: string }
  | { op: 'findRouterByFingerprint'; fingerprint: string }
  | { op: 'findUpdb'; username: string }
  | ({ op: 'roleAttributes'; kind: KindName; params?: ListParams } & Streamable)
  | { op: 'controllers' }
  | { op: 'postureCheckTypes'; id?: string; params?: ListParams }
  | { op: 'summary' }
  | { op: 'status' }
  | { op: 'serviceUpdates' };

/** Node-local features served under the query subject with a prefixed op (`ops.snapshot`,
 * `cluster.status`); the feature that registered the prefix reads its own messages. */
export type DelegatedQuery =
  | { op: 'ops.integrityStart'; fix: boolean }
  | { op: 'ops.integrityResults' }
  | { op: 'ops.snapshot' }
  | { op: 'ops.trace'; identityId: string; spec: unknown }
  | { op: 'cluster.status' }
  | { op: 'cluster.drain'; nodeId: string };

/** What a query may be: one of the family or a delegated one. */
export type AnyQuery = QueryRequest | DelegatedQuery;

/** The reply of each op, where a sender reads it (unknown: the gateway passes it on as is). */
export interface QueryReplies {
  get: Record<string, unknown>;
  list: ListReply;
  related: ListReply;
  listNext: ListChunk;
  listClose: Record<string, never>;
  clientServices: unknown;
  clientServiceVisible: boolean;
  clientSessions: unknown;
  configQuery: ListReply;
  policyAdvice: unknown;
  resolveSession: SessionInfo;
  currentSession: unknown;
  mfaDetail: unknown;
  mfaRecoveryCodes: unknown;
  mfaProvisioningUrl: { provisioningUrl: string };
  extJwtSigner: ExtJwtSignerInfo | null;
  extJwtIdentity: { identityId: string } | null;
  findEnrollment: EnrollmentHolder | null;
  findCertIdentity: CertIdentity | null;
  findRouterByFingerprint: { kind: 'edge-routers' | 'routers'; id: string } | null;
  findUpdb: { identityId: string; authenticatorId: string } | null;
  roleAttributes: ListReply;
  controllers: ListReply;
  postureCheckTypes: unknown;
  summary: Record<string, number>;
  status: { appliedSeq: number };
  serviceUpdates: { lastChangeAt: string };
  'ops.integrityStart': unknown;
  'ops.integrityResults': { results: unknown[]; startTime: string | null; endTime: string | null; error: string | null };
  'ops.snapshot': unknown;
  'ops.trace': unknown;
  'cluster.status': unknown;
  'cluster.drain': unknown;
}

/** The reply type of a query message (a `stream` list may answer a cursor instead of a page). */
export type QueryReply<M extends AnyQuery> = M extends { op: StreamableOp; stream: true } ? ListReply | ListCursorReply : QueryReplies[M['op']];

/** The ops whose unpaged lists may answer a cursor (`stream`). */
export type StreamableOp = 'list' | 'related' | 'clientServices' | 'clientSessions' | 'configQuery' | 'roleAttributes';

function params(m: Fields): ListParams | undefined {
  const p = optObj(m, 'params');
  if (!p) return undefined;
  const at = (field: string) => optStr(p, field);
  return {
    filter: at('filter'),
    sort: at('sort'),
    limit: at('limit'),
    offset: at('offset'),
    roleFilter: optStrList(p, 'roleFilter'),
    roleSemantic: at('roleSemantic'),
    policyType: at('policyType'),
  };
}

function viewer(m: Fields): Viewer | undefined {
  const v = optObj(m, 'viewer');
  return v && { identityId: optStr(v, 'identityId'), configTypes: optStrList(v, 'configTypes') };
}

function listing(m: Fields): Listing {
  return { params: params(m), viewer: viewer(m) };
}

const CONFIG_QUERIES = new Set<string>(['configTypeConfigs', 'configServices', 'serviceConfigs', 'identityServiceConfigs']);

function configQueryName(m: Fields): ConfigQueryName {
  const query = str(m, 'query');
  if (!CONFIG_QUERIES.has(query)) throw unknownOperation('configQuery', query);
  return query as ConfigQueryName;
}

function pems(m: Fields): string[] {
  return optStrList(m, 'pems') ?? [];
}

/** The query family: a reader per op (a missing one does not compile). */
export const QUERY_PROTOCOL: Protocol<QueryRequest> = {
  family: 'query',
  readers: {
    get: (m) => ({ op: m.op, kind: kindName(m, 'kind'), id: str(m, 'id'), viewer: viewer(m) }),
    list: (m) => ({ op: m.op, kind: kindName(m, 'kind'), ...listing(m), stream: optBool(m, 'stream') }),
    related: (m) => {
      const parent = obj(m, 'parent');
      return { op: m.op, parent: { kind: kindName(parent, 'kind'), id: str(parent, 'id') }, kind: kindName(m, 'kind'), ...listing(m), stream: optBool(m, 'stream') };
    },
    listNext: (m) => ({ op: m.op, cursor: str(m, 'cursor') }),
    listClose: (m) => ({ op: m.op, cursor: str(m, 'cursor') }),
    clientServices: (m) => ({
      op: m.op,
      identityId: str(m, 'identityId'),
      apiSessionId: optStr(m, 'apiSessionId'),
      id: optStr(m, 'id'),
      posture: obj(m, 'posture'),
      ...listing(m),
      stream: optBool(m, 'stream'),
    }),
    clientServiceVisible: (m) => ({ op: m.op, identityId: str(m, 'identityId'), id: str(m, 'id') }),
    clientSessions: (m) => ({ op: m.op, identityId: str(m, 'identityId'), isAdmin: optBool(m, 'isAdmin') === true, id: optStr(m, 'id'), ...listing(m), stream: optBool(m, 'stream') }),
    configQuery: (m) => ({ op: m.op, query: configQueryName(m), id: str(m, 'id'), ...listing(m), stream: optBool(m, 'stream') }),
    policyAdvice: (m) => ({ op: m.op, identityId: str(m, 'identityId'), serviceId: str(m, 'serviceId') }),
    resolveSession: (m) => ({ op: m.op, token: str(m, 'token') }),
    currentSession: (m) => ({ op: m.op, token: str(m, 'token'), extJwtPassed: optBool(m, 'extJwtPassed') === true }),
    mfaDetail: (m) => ({ op: m.op, identityId: str(m, 'identityId') }),
    mfaRecoveryCodes: (m) => ({ op: m.op, identityId: str(m, 'identityId'), code: optStr(m, 'code') }),
    mfaProvisioningUrl: (m) => ({ op: m.op, identityId: str(m, 'identityId') }),
    extJwtSigner: (m) => ({ op: m.op, issuer: str(m, 'issuer') }),
    extJwtIdentity: (m) => ({ op: m.op, value: str(m, 'value'), useExternalId: optBool(m, 'useExternalId') === true }),
    findEnrollment: (m) => ({ op: m.op, token: str(m, 'token') }),
    findCertIdentity: (m) => ({ op: m.op, pems: pems(m), fingerprint: str(m, 'fingerprint') }),
    findRouterByFingerprint: (m) => ({ op: m.op, fingerprint: str(m, 'fingerprint') }),
    findUpdb: (m) => ({ op: m.op, username: str(m, 'username') }),
    roleAttributes: (m) => ({ op: m.op, kind: kindName(m, 'kind'), params: params(m), stream: optBool(m, 'stream') }),
    controllers: (m) => ({ op: m.op }),
    postureCheckTypes: (m) => ({ op: m.op, id: optStr(m, 'id'), params: params(m) }),
    summary: (m) => ({ op: m.op }),
    status: (m) => ({ op: m.op }),
    serviceUpdates: (m) => ({ op: m.op }),
  },
};
