// The identity-service-configs catalog actor: associates and removes an identity's per-service
// config overrides (`/identities/{id}/service-configs`), one per identity, service and config type.

import type { Entity, Op } from '../domain/commands.js';
import { checkItemCount } from '../domain/validate.js';
import { ApiError, fieldError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { Actor, ActorMessage } from './actor-host.js';
import type { Proposer } from './proposer.js';

const KIND = 'identity-service-configs';
/** The body's name in the upstream API document, used in field paths. */
const BODY = 'serviceConfigs';

interface Pair {
  serviceId: string;
  configId: string;
}

/** An override's id: one per identity, service and config type (ids never contain ':'), so a
 * second config of the same type for the same service lands on the same record. */
export function overrideId(identityId: string, serviceId: string, configTypeId: string): string {
  return `${identityId}:${serviceId}:${configTypeId}`;
}

export class IdentityServiceConfigCatalog implements Actor {
  constructor(private readonly deps: { replica: Replica; proposer: Proposer }) {}

  isIdle(): boolean {
    return true;
  }

  async handle(msg: ActorMessage): Promise<unknown> {
    const identityId = String(msg.id ?? '');
    if (!(await this.deps.replica.get('identities', identityId))) throw new ApiError('NOT_FOUND');
    switch (msg.op) {
      case 'associate':
        return this.associate(identityId, pairsOf(msg.body));
      case 'disassociate':
        return this.disassociate(identityId, msg.body);
      default:
        throw new ApiError('UNHANDLED', { code: 'UNHANDLED', message: `unknown ${KIND} operation ${msg.op}` });
    }
  }

  /** Creates or replaces the override of each pair's config type; all or nothing. */
  private async associate(identityId: string, pairs: Pair[]): Promise<Record<string, never>> {
    const { replica } = this.deps;
    const at = new Date().toISOString();
    const records = new Map<string, Entity>();
    for (const [i, { serviceId, configId }] of pairs.entries()) {
      if (!(await replica.get('services', serviceId))) throw fieldError(`${BODY}[${i}].serviceId`, serviceId, 'no service found with the given id');
      const config = await replica.get('configs', configId);
      if (!config) throw fieldError(`${BODY}[${i}].configId`, configId, 'no config found with the given id');
      const configTypeId = String(config.configTypeId);
      const id = overrideId(identityId, serviceId, configTypeId);
      records.set(id, { id, createdAt: at, updatedAt: at, tags: {}, identityId, serviceId, configId, configTypeId });
    }
    const ops: Op[] = [];
    for (const record of records.values()) {
      const existing = await replica.get(KIND, record.id);
      if (existing?.configId === record.configId) continue;
      ops.push(existing ? { op: 'update', kind: KIND, record: { ...record, createdAt: existing.createdAt } } : { op: 'create', kind: KIND, record });
    }
    if (ops.length > 0) await this.deps.proposer.propose(ops, at);
    return {};
  }

  /** Removes the listed pairs; no body (or an empty list) removes every override of the identity. */
  private async disassociate(identityId: string, body: unknown): Promise<Record<string, never>> {
    const { replica, proposer } = this.deps;
    if (body === undefined || body === null || (Array.isArray(body) && body.length === 0)) {
      await proposer.propose([{ op: 'deleteWhere', kind: KIND, field: 'identityId', value: identityId }]);
      return {};
    }
    const wanted = new Set(pairsOf(body).map((p) => `${p.serviceId}\u0000${p.configId}`));
    const ops: Op[] = [];
    for await (const id of replica.idsWhere(KIND, 'identityId', identityId)) {
      const record = await replica.get(KIND, id);
      if (record && wanted.has(`${String(record.serviceId)}\u0000${String(record.configId)}`)) {
        ops.push({ op: 'delete', kind: KIND, id, ifExists: true });
      }
    }
    if (ops.length > 0) await proposer.propose(ops);
    return {};
  }
}

/** The body: a JSON array of `{serviceId, configId}`. */
function pairsOf(body: unknown): Pair[] {
  if (!Array.isArray(body)) throw fieldError(BODY, body ?? null, `${BODY} must be an array of {serviceId, configId}`);
  checkItemCount(BODY, body.length);
  return body.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw fieldError(`${BODY}[${i}]`, item, `${BODY}[${i}] must be an object with serviceId and configId`);
    }
    const pair = item as Record<string, unknown>;
    for (const field of ['serviceId', 'configId']) {
      if (typeof pair[field] !== 'string' || pair[field] === '') {
        throw fieldError(`${BODY}[${i}].${field}`, pair[field] ?? null, `${field} is required`);
      }
    }
    return { serviceId: pair.serviceId as string, configId: pair.configId as string };
  });
}
