// Presentation: turns stored entities into their wire shape (secret fields dropped, refs,
// computed fields and _links added). Used by the node-local query handler only.

import type { Entity } from '../domain/commands.js';
import { isDisabled } from '../domain/identity-state.js';
import { declarationOf, resourceOf, type Kind } from '../domain/registry.js';
import { fieldsOf } from '../domain/resource.js';
import type { Viewer } from '../protocol/v1/query-messages.js';
import type { Replica } from '../store/replica.js';

export type Wire = Record<string, unknown>;

export function selfLink(kind: string, id: string): { self: { href: string } } {
  return { self: { href: `./${kind}/${encodeURIComponent(id)}` } };
}

/** `{id, name, entity, _links}` reference to another entity. */
export function entityRef(kind: Kind, id: string, name: string): Wire {
  return { _links: selfLink(kind, id), entity: resourceOf(kind).entity, id, name };
}

export type { Viewer };

/** What a decorator reads with. `keepReads` (default true) is false while a streamed list
 * presents its items: the records and ranges a decorator reads then are not kept in the
 * replica's caches (each item is presented once; keeping what 100,000 items read only churns
 * the caches and the heap). */
export interface DecoratorContext {
  replica: Replica;
  viewer: Viewer;
  keepReads?: boolean;
}

/** Adds kind-specific fields to a presented record. */
export type Decorator = (wire: Wire, record: Entity, ctx: DecoratorContext) => Promise<void>;

/** The decorators of one presentation, by the kinds it serves. */
export type Decorators = Partial<Record<Kind, Decorator>>;

export class Presenter {
  /** `decorators`: each kind's computed fields, in the order they run (see presentations.ts). */
  constructor(
    private readonly replica: Replica,
    private readonly decorators: ReadonlyMap<string, Decorator> = new Map(),
  ) {}

  async present(kind: string, record: Entity, viewer: Viewer = {}, keepReads = true): Promise<Wire> {
    const wire = this.base(kind, record);
    await this.decorators.get(kind)?.(wire, record, { replica: this.replica, viewer, keepReads });
    return wire;
  }

  /** `keepReads` false for a streamed list (see DecoratorContext). */
  async presentAll(kind: string, records: Entity[], viewer: Viewer = {}, keepReads = true): Promise<Wire[]> {
    return Promise.all(records.map((r) => this.present(kind, r, viewer, keepReads)));
  }

  private base(kind: string, record: Entity): Wire {
    const fields = fieldsOf(declarationOf(kind));
    const wire: Wire = {};
    for (const [name, value] of Object.entries(record)) {
      const spec = fields[name];
      if (spec?.secret) continue;
      wire[name] = value;
    }
    wire.tags = record.tags ?? {};
    wire._links = selfLink(kind, record.id);
    return wire;
  }
}

/** The references and upstream defaults of identities, API sessions and authenticators. */
export function entityRefDecorators(): Decorators {
  return { identities: identity, 'api-sessions': apiSession, authenticators: authenticator };
}

async function identity(wire: Wire, record: Entity, { replica, keepReads = true }: DecoratorContext): Promise<void> {
  const typeId = String(record.typeId ?? 'Default');
  const policyId = String(record.authPolicyId ?? 'default');
  const policy = await replica.get('auth-policies', policyId);
  wire.type = entityRef('identity-types', typeId, typeId);
  wire.authPolicy = entityRef('auth-policies', policyId, String(policy?.name ?? policyId));
  wire.disabled = isDisabled(record);
  wire.disabledAt ??= null;
  wire.disabledUntil ??= null;
  wire.envInfo ??= {};
  wire.sdkInfo ??= {};
  wire.externalId ??= null;
  wire.isMfaEnabled = false;
  wire.hasEdgeRouterConnection = false;
  wire.edgeRouterConnectionStatus = 'offline';
  wire.enrollment = {};
  wire.authenticators = await authenticatorSummary(replica, record.id, keepReads);
  wire.hasApiSession = (await replica.idsWhereList('api-sessions', 'identityId', record.id, keepReads)).length > 0;
  wire._links = {
    ...selfLink('identities', record.id),
    'api-sessions': { href: `./identities/${encodeURIComponent(record.id)}/api-sessions` },
    'auth-policies': { href: `./auth-policies/${encodeURIComponent(policyId)}` },
    authenticators: { href: `./identities/${encodeURIComponent(record.id)}/authenticators` },
  };
}

async function authenticatorSummary(replica: Replica, identityId: string, keep: boolean): Promise<Wire> {
  const summary: Wire = {};
  const auths = await replica.getMany('authenticators', await replica.idsWhereList('authenticators', 'identityId', identityId, keep), keep);
  for (const auth of auths) {
    if (auth?.method === 'updb') summary.updb = { id: auth.id, username: auth.username };
    if (auth?.method === 'cert') summary.cert = { id: auth.id, fingerprint: auth.fingerprint };
  }
  return summary;
}

async function authenticator(wire: Wire, record: Entity, { replica }: { replica: Replica }): Promise<void> {
  const identity = await replica.get('identities', String(record.identityId));
  wire.identity = entityRef('identities', String(record.identityId), String(identity?.name ?? ''));
  wire.username ??= '';
  wire.certPem ??= '';
  wire.fingerprint ??= '';
  wire.isIssuedByNetwork = record.isIssuedByNetwork === true;
  wire.isExtendRequested = false;
  wire.isKeyRollRequested = false;
  wire.extendRequestedAt = null;
  wire.lastAuthResolvedToRoot = false;
  wire.lastExtendRolledKeys = false;
}

async function apiSession(wire: Wire, record: Entity, { replica }: { replica: Replica }): Promise<void> {
  const identity = await replica.get('identities', String(record.identityId));
  wire.identity = entityRef('identities', String(record.identityId), String(identity?.name ?? ''));
  wire.cachedLastActivityAt = record.lastActivityAt;
  wire.authQueries = [];
  wire.isCertExtendable = false;
  wire.isCertExtendRequested = false;
  wire.isCertKeyRollRequested = false;
  wire.improperClientCertChain = false;
}
