// API-session reads: who a session token belongs to (every authenticated request asks), the
// current-session detail, and the updb authenticator a login names. Reads the replica and the
// node's session activity; never writes (the activity is the keeper's to record).

import type { Entity } from '../domain/commands.js';
import { isDisabled } from '../domain/identity-state.js';
import { hashToken } from '../domain/session-token.js';
import { ApiError } from '../errors.js';
import type { HandlerTable } from '../protocol/v1/handler-table.js';
import type { QueryRequest, SessionInfo } from '../protocol/v1/query-messages.js';
import type { Replica } from '../store/replica.js';
import type { Presenter } from './present.js';
import { currentAuthQueries, requiredExtJwtSignerOf } from './secondary-queries.js';

/** What session reads need of the node's session activity (SessionKeeper provides it). */
export interface SessionActivity {
  /** Session timeout (ms). */
  readonly timeoutMs: number;
  isExpired(session: Entity): boolean;
  /** Epoch ms at which the session expires, counting activity seen on this node. */
  expiresAt(session: Entity): number;
  lastActivity(session: Entity): number;
  /** Marks the session active now (sliding expiry). */
  touch(id: string): void;
}

/** How many tokens the session lookup remembers (the oldest is forgotten first). */
const TOKENS_REMEMBERED = 10_000;

export class SessionQueries {
  /** Recently presented tokens → their session (see sessionByToken); node memory only. */
  private readonly tokenSessions = new Map<string, { id: string; tokenHash: string }>();

  constructor(
    private readonly replica: Replica,
    private readonly sessions: SessionActivity,
    private readonly presenter: Presenter,
  ) {}

  /** `resolveSession`, `currentSession` and `findUpdb`. */
  handlers(): Pick<HandlerTable<QueryRequest>, 'resolveSession' | 'currentSession' | 'findUpdb'> {
    return {
      resolveSession: (m) => this.resolveSession(m.token),
      currentSession: (m) => this.currentSession(m.token, m.extJwtPassed),
      findUpdb: (m) => this.findUpdb(m.username),
    };
  }

  private async sessionOf(token: string): Promise<{ session: Entity; identity: Entity }> {
    const session = token ? await this.sessionByToken(token) : undefined;
    if (!session || this.sessions.isExpired(session)) throw new ApiError('UNAUTHORIZED');
    const identity = await this.replica.get('identities', String(session.identityId));
    if (!identity || isDisabled(identity)) throw new ApiError('UNAUTHORIZED');
    return { session, identity };
  }

  /** The API session a token belongs to. A token seen before skips the hash and the index
   * lookup, but its session record is still read and its token hash compared every time, so a
   * deleted or replaced session is refused at once. */
  private async sessionByToken(token: string): Promise<Entity | undefined> {
    const known = this.tokenSessions.get(token);
    if (known) {
      const session = await this.replica.get('api-sessions', known.id);
      if (session?.tokenHash === known.tokenHash) return session;
      this.tokenSessions.delete(token);
    }
    const tokenHash = hashToken(token);
    const session = await this.replica.findUnique('api-sessions', 'tokenHash', tokenHash);
    if (session) {
      if (this.tokenSessions.size >= TOKENS_REMEMBERED) this.tokenSessions.delete(this.tokenSessions.keys().next().value!);
      this.tokenSessions.set(token, { id: session.id, tokenHash });
    }
    return session;
  }

  /** Validates a token, marks the session active (sliding expiry) and says who the caller is. */
  private async resolveSession(token: string): Promise<SessionInfo> {
    const { session, identity } = await this.sessionOf(token);
    this.sessions.touch(session.id);
    const expiresAt = this.sessions.expiresAt(session);
    return {
      apiSessionId: session.id,
      identityId: identity.id,
      identityName: String(identity.name),
      isAdmin: identity.isAdmin === true || identity.isDefaultAdmin === true,
      expiresAt: new Date(expiresAt).toISOString(),
      expirationSeconds: Math.round(this.sessions.timeoutMs / 1000),
      isMfaRequired: session.isMfaRequired === true,
      isMfaComplete: session.isMfaComplete === true,
      requiredExtJwtSigner: await requiredExtJwtSignerOf(this.replica, identity),
    };
  }

  /** The current-API-session detail (token included: the caller presented it); `extJwtPassed`
   * says the request carried a valid token of the required ext-jwt signer. */
  private async currentSession(token: string, extJwtPassed: boolean): Promise<unknown> {
    const { session, identity } = await this.sessionOf(token);
    const wire = await this.presenter.present('api-sessions', session);
    const last = new Date(this.sessions.lastActivity(session)).toISOString();
    return {
      ...wire,
      authQueries: await currentAuthQueries(this.replica, session, identity, extJwtPassed),
      token,
      lastActivityAt: last,
      expiresAt: new Date(this.sessions.expiresAt(session)).toISOString(),
      expirationSeconds: Math.round(this.sessions.timeoutMs / 1000),
    };
  }

  private async findUpdb(username: string): Promise<{ identityId: string; authenticatorId: string } | null> {
    const auth = await this.replica.findUnique('authenticators', 'username', username);
    if (!auth || auth.method !== 'updb') return null;
    return { identityId: String(auth.identityId), authenticatorId: auth.id };
  }
}
