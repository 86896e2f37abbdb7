// Reads around configs: the `configType` ref of a config, a service's `config` map for the
// requested config types, and the config related lists. Node-local reads only; never writes.

import type { Entity } from '../domain/commands.js';
import { NO_LIMIT_REPORTED } from '../domain/paging.js';
import type { Kind } from '../domain/registry.js';
import { ApiError } from '../errors.js';
import type { Scope } from '../store/query-engine.js';
import type { Replica } from '../store/replica.js';
import { sortedRuns, TICK } from '../store/sorted-runs.js';
import { entityRef, type Decorator, type Viewer, type Wire } from './present.js';
import type { MessageOf } from '../protocol/v1/handler-table.js';
import type { ListParams, QueryRequest } from '../protocol/v1/query-messages.js';

/** What the config queries need from the query handler: its replica, its list, and (for a
 * streamed answer, `stream`) its list cursors. */
export interface ConfigQueryDeps {
  replica: Replica;
  list: (kind: string, params: ListParams, scope: Scope) => Promise<unknown>;
  stream: boolean;
  openCursor: (source: AsyncIterable<Wire | typeof TICK>) => string;
}

/** The `configQuery` op: `query` names the related list, `id` its parent. */
export async function answerConfigQuery(msg: MessageOf<QueryRequest, 'configQuery'>, deps: ConfigQueryDeps): Promise<unknown> {
  const { id } = msg;
  const params = msg.params ?? {};
  const parent = async (kind: Kind) => {
    const record = await deps.replica.get(kind, id);
    if (!record) throw new ApiError('NOT_FOUND');
    return record;
  };
  switch (msg.query) {
    case 'configTypeConfigs':
      await parent('config-types');
      return deps.list('configs', params, { field: 'configTypeId', value: id });
    case 'configServices':
      await parent('configs');
      return deps.list('services', params, { field: 'configs', value: id });
    case 'serviceConfigs': {
      const service = await parent('services');
      return deps.list('configs', params, { ids: (service.configs as string[] | undefined) ?? [] });
    }
    case 'identityServiceConfigs': {
      await parent('identities');
      // As upstream, never paged: with `stream` the whole list is a cursor, else built whole.
      const source = identityServiceConfigs(deps.replica, id);
      const pagination = { limit: NO_LIMIT_REPORTED, offset: 0 };
      if (deps.stream) return { cursor: deps.openCursor(source), meta: { pagination } };
      const data: Wire[] = [];
      for await (const item of source) if (item !== TICK) data.push(item);
      return { data, meta: { pagination: { ...pagination, totalCount: data.length } } };
    }
  }
}

/** Overrides read between two TICKs while their ids are collected. */
const OVERRIDES_PER_TICK = 256;

/**
 * `/identities/{id}/service-configs`: `{serviceId, service, configId, config}` by service then
 * config. Only each override's id and sort values are kept and sorted (in runs, as
 * QueryEngine.stream sorts what no index orders); the service and config are read as items go.
 */
async function* identityServiceConfigs(replica: Replica, identityId: string): AsyncGenerator<Wire | typeof TICK> {
  const keys: { serviceId: string; configId: string }[] = [];
  let read = 0;
  for await (const id of replica.idsWhere('identity-service-configs', 'identityId', identityId)) {
    const override = await replica.get('identity-service-configs', id);
    if (override) keys.push({ serviceId: String(override.serviceId), configId: String(override.configId) });
    if (++read % OVERRIDES_PER_TICK === 0) yield TICK;
  }
  const order = (a: (typeof keys)[0], b: (typeof keys)[0]) => a.serviceId.localeCompare(b.serviceId) || a.configId.localeCompare(b.configId);
  for (const key of sortedRuns(keys, order)) {
    if (key === TICK) {
      yield TICK;
      continue;
    }
    const service = await replica.get('services', key.serviceId);
    const config = await replica.get('configs', key.configId);
    if (!service || !config) continue;
    yield {
      serviceId: service.id,
      service: entityRef('services', service.id, String(service.name)),
      configId: config.id,
      config: entityRef('configs', config.id, String(config.name)),
    };
  }
}

/** Configs: the `configType` reference. */
export const decorateConfig: Decorator = async (wire, record, { replica }) => {
  const typeId = String(record.configTypeId);
  const type = await replica.get('config-types', typeId);
  wire.configType = entityRef('config-types', typeId, String(type?.name ?? ''));
};

/** Services: `configs` as stored, the `config` map for the viewer's `configTypes`, the configs link. */
export const decorateServiceConfigs: Decorator = async (wire, record, { replica, viewer }) => {
  wire.configs = (record.configs as string[] | undefined) ?? [];
  wire.config = await configMap(replica, record, viewer);
  wire._links = { ...(wire._links as Wire), configs: { href: `./services/${encodeURIComponent(record.id)}/configs` } };
};

/**
 * `{<config type name>: data}` for the service's configs of the requested types; the viewer's
 * own identity overrides (`/identities/{id}/service-configs`) win over the service's configs.
 * Empty when no `configTypes` were requested.
 */
async function configMap(replica: Replica, service: Entity, viewer: Viewer): Promise<Wire> {
  const requested = await requestedTypes(replica, viewer);
  if (!requested) return {};
  const wanted = (typeId: unknown) => requested === 'all' || requested.has(String(typeId));
  const byType = new Map<string, Entity>();
  for (const config of await replica.getMany('configs', (service.configs as string[] | undefined) ?? [])) {
    if (config && wanted(config.configTypeId)) byType.set(String(config.configTypeId), config);
  }
  if (viewer.identityId) {
    for await (const id of replica.idsWhere('identity-service-configs', 'identityId', viewer.identityId)) {
      const override = await replica.get('identity-service-configs', id);
      if (override?.serviceId !== service.id || !wanted(override.configTypeId)) continue;
      const config = await replica.get('configs', String(override.configId));
      if (config) byType.set(String(config.configTypeId), config);
    }
  }
  const map: Wire = {};
  for (const [typeId, config] of byType) {
    const type = await replica.get('config-types', typeId);
    if (type) map[String(type.name)] = config.data;
  }
  return map;
}

/** The requested config types as ids (names and ids accepted, unknown ones ignored, `all`
 * selects every type); resolved once per request (the viewer object is shared by its items). */
const resolved = new WeakMap<Viewer, Promise<Set<string> | 'all' | undefined>>();

function requestedTypes(replica: Replica, viewer: Viewer): Promise<Set<string> | 'all' | undefined> {
  let result = resolved.get(viewer);
  if (!result) {
    result = resolveTypes(replica, viewer.configTypes ?? []);
    resolved.set(viewer, result);
  }
  return result;
}

async function resolveTypes(replica: Replica, requested: string[]): Promise<Set<string> | 'all' | undefined> {
  const names = requested.map((t) => t.trim()).filter((t) => t !== '');
  if (names.length === 0) return undefined;
  if (names.includes('all')) return 'all';
  const ids = new Set<string>();
  for (const name of names) {
    const type = (await replica.get('config-types', name)) ?? (await replica.findUnique('config-types', 'name', name));
    if (type) ids.add(type.id);
  }
  return ids;
}
