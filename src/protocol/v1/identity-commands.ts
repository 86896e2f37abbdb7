// The identity family (`weft.v1.identity.<shard>`): every command an identity actor serves,
// as one discriminated union on `op`, and a reader per op that checks a received message.
// Fields a request body supplies stay `unknown`: the handler validates them as before.

import type { Protocol } from './handler-table.js';
import { readEnvelope, type CommandEnvelope } from './command-envelope.js';
import { bool, obj, optBool, optStr, optStrList, str, type Fields } from './message-fields.js';

/** What a login passes along for the new API session (validated where the session is made). */
export type SessionRequestFields = { ipAddress?: unknown; configTypes?: unknown; envInfo?: unknown; sdkInfo?: unknown };

/** What the gateway verified for a token enrollment: the token's signer and claims, and the
 * optional CSR. */
export interface TokenEnrollment {
  signerId: string;
  claims: Record<string, unknown>;
  csr?: string;
}

/** The caller's certificate chain, PEM each, leaf first (empty when none was presented). */
type PeerCerts = { peerCerts: string[] };

/** One command of the family, without its envelope. */
export type IdentityCommandBody =
  | { op: 'create'; body: unknown }
  | { op: 'replace'; body: unknown }
  | { op: 'patch'; body: unknown }
  | { op: 'delete' }
  | { op: 'disable'; body: unknown }
  | { op: 'enable' }
  | ({ op: 'loginPassword'; authenticatorId: string; password: string } & SessionRequestFields)
  | ({ op: 'enroll'; token: string; method: string; csrPem?: unknown; password?: unknown } & PeerCerts)
  | ({ op: 'enrollCa'; name?: unknown } & PeerCerts)
  | { op: 'enrollToken'; body: TokenEnrollment }
  | ({ op: 'loginCert'; authenticatorId?: string; externalId?: string; caId?: string } & PeerCerts & SessionRequestFields)
  | ({ op: 'extendCert'; authenticatorId: string; body: unknown } & PeerCerts)
  | ({ op: 'extendCertVerify'; authenticatorId: string; body: unknown } & PeerCerts)
  | ({ op: 'loginExtJwt'; signerId: string } & SessionRequestFields)
  | { op: 'mfaEnroll'; code?: string; apiSessionId?: string }
  | { op: 'mfaVerify'; code?: string; apiSessionId?: string }
  | { op: 'mfaAuthenticate'; code?: string; apiSessionId?: string }
  | { op: 'mfaRegenerateCodes'; code?: string; apiSessionId?: string }
  | { op: 'mfaDelete'; code?: string; apiSessionId?: string }
  | { op: 'mfaRemove' }
  | { op: 'mfaTotpToken'; code?: string; apiSessionId?: string }
  | { op: 'postureResponses'; apiSessionId?: string; responses: unknown; single?: boolean; source?: string }
  | { op: 'postureSnapshot'; apiSessionId?: string }
  | { op: 'postureData' }
  | { op: 'failedServiceRequests' }
  | { op: 'postureTimer' }
  | { op: 'postureReevaluate' }
  | { op: 'postureForget' }
  | { op: 'createSession'; apiSessionId: string; body: unknown }
  | { op: 'deleteSession'; sessionId: string; isAdmin: boolean };

/** A command as an identity actor receives it: envelope and body. */
export type IdentityCommand = IdentityCommandBody & CommandEnvelope;

/** The ops of the family. */
export type IdentityOp = IdentityCommandBody['op'];

/** One entry of a posture response's `services` list. */
export interface AffectedService {
  id: string;
  name: string;
  postureQueryType: 'MFA';
  timeout: number;
  timeoutRemaining: number;
}

/** The `postureResponses` reply: services to prompt for again, and the sessions revoked. */
export interface PostureSubmitResult {
  services: AffectedService[];
  revokedSessionIds: string[];
}

/** The reply of each op, where a sender reads it (unknown: passed on as is). */
export interface IdentityReplies {
  create: { id: string };
  loginPassword: { token: string };
  loginCert: { token: string };
  loginExtJwt: { token: string };
  enroll: { cert?: string; [field: string]: unknown };
  enrollToken: { cert?: string; ca?: string };
  mfaTotpToken: { token: string; issuedAt: string };
  extendCert: Record<string, unknown>;
  mfaEnroll: { id: string };
  postureResponses: PostureSubmitResult;
  postureSnapshot: Record<string, unknown>;
  createSession: { id: string };
}

/** The reply type of one op. */
export type IdentityReply<Op extends IdentityOp> = Op extends keyof IdentityReplies ? IdentityReplies[Op] : unknown;

/** The payload a sender gives for one op (the envelope is the client's to add). */
export type IdentityPayload<Op extends IdentityOp> = Omit<Extract<IdentityCommandBody, { op: Op }>, 'op'>;

function sessionRequest(m: Fields): SessionRequestFields {
  return { ipAddress: m.ipAddress, configTypes: m.configTypes, envInfo: m.envInfo, sdkInfo: m.sdkInfo };
}

function peerCerts(m: Fields): PeerCerts {
  return { peerCerts: optStrList(m, 'peerCerts') ?? [] };
}

function mfa(m: Fields): { code?: string; apiSessionId?: string } {
  return { code: optStr(m, 'code'), apiSessionId: optStr(m, 'apiSessionId') };
}

function tokenEnrollment(m: Fields): TokenEnrollment {
  const body = obj(m, 'body');
  return { signerId: str(body, 'signerId'), claims: obj(body, 'claims'), csr: optStr(body, 'csr') };
}

/** The identity family: a reader per op (a missing one does not compile). */
export const IDENTITY_PROTOCOL: Protocol<IdentityCommand> = {
  family: 'identities',
  readers: {
    create: (m) => ({ ...readEnvelope(m), op: m.op, body: m.body }),
    replace: (m) => ({ ...readEnvelope(m), op: m.op, body: m.body }),
    patch: (m) => ({ ...readEnvelope(m), op: m.op, body: m.body }),
    delete: (m) => ({ ...readEnvelope(m), op: m.op }),
    disable: (m) => ({ ...readEnvelope(m), op: m.op, body: m.body }),
    enable: (m) => ({ ...readEnvelope(m), op: m.op }),
    loginPassword: (m) => ({ ...readEnvelope(m), op: m.op, authenticatorId: str(m, 'authenticatorId'), password: str(m, 'password'), ...sessionRequest(m) }),
    enroll: (m) => ({ ...readEnvelope(m), op: m.op, token: str(m, 'token'), method: str(m, 'method'), csrPem: m.csrPem, password: m.password, ...peerCerts(m) }),
    enrollCa: (m) => ({ ...readEnvelope(m), op: m.op, name: m.name, ...peerCerts(m) }),
    enrollToken: (m) => ({ ...readEnvelope(m), op: m.op, body: tokenEnrollment(m) }),
    loginCert: (m) => ({
      ...readEnvelope(m),
      op: m.op,
      authenticatorId: optStr(m, 'authenticatorId'),
      externalId: optStr(m, 'externalId'),
      caId: optStr(m, 'caId'),
      ...peerCerts(m),
      ...sessionRequest(m),
    }),
    extendCert: (m) => ({ ...readEnvelope(m), op: m.op, authenticatorId: str(m, 'authenticatorId'), body: m.body, ...peerCerts(m) }),
    extendCertVerify: (m) => ({ ...readEnvelope(m), op: m.op, authenticatorId: str(m, 'authenticatorId'), body: m.body, ...peerCerts(m) }),
    loginExtJwt: (m) => ({ ...readEnvelope(m), op: m.op, signerId: str(m, 'signerId'), ...sessionRequest(m) }),
    mfaEnroll: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    mfaVerify: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    mfaAuthenticate: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    mfaRegenerateCodes: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    mfaDelete: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    mfaRemove: (m) => ({ ...readEnvelope(m), op: m.op }),
    mfaTotpToken: (m) => ({ ...readEnvelope(m), op: m.op, ...mfa(m) }),
    postureResponses: (m) => ({
      ...readEnvelope(m),
      op: m.op,
      apiSessionId: optStr(m, 'apiSessionId'),
      responses: m.responses,
      single: optBool(m, 'single') === true,
      source: optStr(m, 'source'),
    }),
    postureSnapshot: (m) => ({ ...readEnvelope(m), op: m.op, apiSessionId: optStr(m, 'apiSessionId') }),
    postureData: (m) => ({ ...readEnvelope(m), op: m.op }),
    failedServiceRequests: (m) => ({ ...readEnvelope(m), op: m.op }),
    postureTimer: (m) => ({ ...readEnvelope(m), op: m.op }),
    postureReevaluate: (m) => ({ ...readEnvelope(m), op: m.op }),
    postureForget: (m) => ({ ...readEnvelope(m), op: m.op }),
    createSession: (m) => ({ ...readEnvelope(m), op: m.op, apiSessionId: str(m, 'apiSessionId'), body: m.body }),
    deleteSession: (m) => ({ ...readEnvelope(m), op: m.op, sessionId: str(m, 'sessionId'), isAdmin: bool(m, 'isAdmin') }),
  },
};
