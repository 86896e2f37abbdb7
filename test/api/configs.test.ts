// Config types, configs, service configs and identity service-config overrides over HTTPS:
// schema checks, data validation, delete rules, related lists and the service `config` map.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type ApiResponse, type TestNode } from '../support/test-node.js';

const HOST_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    hostname: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['hostname'],
  additionalProperties: false,
};

describe('configs over the API', () => {
  let node: TestNode;
  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${++seq}-${Date.now()}`;
  const token = () => node.adminToken;
  const get = (path: string) => node.mgmt.get(path, token());
  const post = (path: string, body: unknown) => node.mgmt.post(path, body, token());
  const put = (path: string, body: unknown) => node.mgmt.put(path, body, token());
  const patch = (path: string, body: unknown) => node.mgmt.patch(path, body, token());
  const del = (path: string, body?: unknown) => node.mgmt.request('DELETE', path, { token: token(), body });

  const created = (res: ApiResponse): string => {
    assert.equal(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const createType = async (schema: unknown = HOST_SCHEMA, name = unique('type')) => ({
    id: created(await post('/config-types', { name, schema })),
    name,
  });
  const createConfig = async (configTypeId: string, data: unknown = { hostname: 'example.com', port: 80 }, name = unique('config')) =>
    created(await post('/configs', { name, configTypeId, data }));
  const createService = async (configs: string[] = []) =>
    created(await post('/services', { name: unique('service'), encryptionRequired: true, configs }));
  const assertFieldError = (res: ApiResponse, field: string | RegExp, reason?: RegExp) => {
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
    if (typeof field === 'string') assert.equal(res.body.error.cause.field, field);
    else assert.match(res.body.error.cause.field, field);
    if (reason) assert.match(res.body.error.cause.reason, reason);
  };

  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node?.close();
  });

  describe('/config-types', () => {
    it('creates, reads, updates and deletes a config type', async () => {
      const { id, name } = await createType();
      const detail = await get(`/config-types/${id}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.data.name, name);
      assert.deepEqual(detail.body.data.schema, HOST_SCHEMA);
      assert.equal(detail.body.data.target, 'service');
      const listed = await get(`/config-types?filter=${encodeURIComponent(`name = "${name}"`)}`);
      assert.equal(listed.body.data.length, 1);
      assert.equal((await patch(`/config-types/${id}`, { name: `${name}-patched` })).status, 200);
      assert.equal((await get(`/config-types/${id}`)).body.data.name, `${name}-patched`);
      assert.equal((await put(`/config-types/${id}`, { name, schema: { type: 'object' } })).status, 200);
      assert.deepEqual((await get(`/config-types/${id}`)).body.data.schema, { type: 'object' });
      assert.equal((await del(`/config-types/${id}`)).status, 200);
      assert.equal((await get(`/config-types/${id}`)).status, 404);
    });

    it('refuses a schema that is not a valid JSON Schema with 400 on schema', async () => {
      const res = await post('/config-types', { name: unique('type'), schema: { type: 'no-such-type' } });
      assertFieldError(res, 'schema', /type/);
    });

    it('refuses a schema with an unresolvable $ref with 400 on schema', async () => {
      const res = await post('/config-types', { name: unique('type'), schema: { $ref: '#/definitions/missing' } });
      assertFieldError(res, 'schema', /missing/);
    });

    it('refuses an invalid schema on PATCH with 400 on schema', async () => {
      const { id } = await createType();
      assertFieldError(await patch(`/config-types/${id}`, { schema: { properties: 'nope' } }), 'schema');
    });

    it('accepts two config types whose schemas share an $id', async () => {
      const schema = { $id: 'http://example.com/schemas/shared.v1.json', type: 'object' };
      await createType(schema);
      await createType({ ...schema, required: ['x'] });
    });
  });

  describe('/configs', () => {
    it('creates a config whose data matches the schema and shows its configType', async () => {
      const type = await createType();
      const id = await createConfig(type.id, { hostname: 'example.com', port: 443 });
      const detail = await get(`/configs/${id}`);
      assert.equal(detail.status, 200);
      assert.deepEqual(detail.body.data.data, { hostname: 'example.com', port: 443 });
      assert.equal(detail.body.data.configTypeId, type.id);
      assert.equal(detail.body.data.configType.id, type.id);
      assert.equal(detail.body.data.configType.name, type.name);
      assert.equal(detail.body.data.configType.entity, 'config-type');
    });

    it('refuses data of the wrong type with 400 on data.<path>', async () => {
      const type = await createType();
      const res = await post('/configs', { name: unique('config'), configTypeId: type.id, data: { hostname: 'h', port: 'eighty' } });
      assertFieldError(res, 'data.port', /must be integer/);
      assert.equal(res.body.error.cause.value, 'eighty');
    });

    it('names a missing required property in the field path', async () => {
      const type = await createType();
      const res = await post('/configs', { name: unique('config'), configTypeId: type.id, data: { port: 80 } });
      assertFieldError(res, 'data.hostname', /required property 'hostname'/);
    });

    it('names array elements with their index', async () => {
      const type = await createType();
      const res = await post('/configs', { name: unique('config'), configTypeId: type.id, data: { hostname: 'h', tags: ['a', 7] } });
      assertFieldError(res, 'data.tags[1]', /must be string/);
    });

    it('refuses an unknown configTypeId with 400 on configTypeId', async () => {
      const res = await post('/configs', { name: unique('config'), configTypeId: 'no-such-type', data: {} });
      assertFieldError(res, 'configTypeId');
    });

    it('validates data on PATCH and PUT, and keeps configTypeId create-only', async () => {
      const type = await createType();
      const other = await createType({ type: 'object' });
      const id = await createConfig(type.id);
      assertFieldError(await patch(`/configs/${id}`, { data: { hostname: 5 } }), /^data/);
      assertFieldError(await put(`/configs/${id}`, { name: unique('config'), data: { hostname: 'h', nope: true } }), 'data.nope', /additional properties/);
      assert.equal((await patch(`/configs/${id}`, { data: { hostname: 'changed.example.com' } })).status, 200);
      const name = unique('config');
      assert.equal((await put(`/configs/${id}`, { name, configTypeId: other.id, data: { hostname: 'put.example.com' } })).status, 200);
      const detail = (await get(`/configs/${id}`)).body.data;
      assert.equal(detail.name, name);
      assert.equal(detail.configTypeId, type.id);
      assert.deepEqual(detail.data, { hostname: 'put.example.com' });
    });

    it('validates against the current schema after the config type changes', async () => {
      const type = await createType({ type: 'object' });
      const id = await createConfig(type.id, { anything: 1 });
      assert.equal((await patch(`/config-types/${type.id}`, { schema: HOST_SCHEMA })).status, 200);
      assertFieldError(await patch(`/configs/${id}`, { data: { anything: 2 } }), /^data/);
    });

    it('refuses to delete a config type that has configs with 409, then allows it', async () => {
      const type = await createType();
      const config = await createConfig(type.id);
      const refused = await del(`/config-types/${type.id}`);
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.error.code, 'CONFLICT_CANNOT_MODIFY_REFERENCED');
      assert.equal((await get(`/config-types/${type.id}`)).status, 200);
      assert.equal((await del(`/configs/${config}`)).status, 200);
      assert.equal((await del(`/config-types/${type.id}`)).status, 200);
    });

    it('lists the configs of a config type at /config-types/{id}/configs', async () => {
      const type = await createType();
      const other = await createType();
      const a = await createConfig(type.id);
      const b = await createConfig(type.id);
      await createConfig(other.id);
      const res = await get(`/config-types/${type.id}/configs`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((c: { id: string }) => c.id).sort(), [a, b].sort());
      assert.equal(res.body.meta.pagination.totalCount, 2);
      assert.equal((await get('/config-types/no-such-type/configs')).status, 404);
    });
  });

  describe('service configs', () => {
    it('shows configs as stored and the config map only for the requested configTypes', async () => {
      const host = await createType();
      const other = await createType({ type: 'object' });
      const hostConfig = await createConfig(host.id, { hostname: 'svc.example.com', port: 22 });
      const otherConfig = await createConfig(other.id, { level: 3 });
      const service = await createService([hostConfig, otherConfig]);

      const plain = (await get(`/services/${service}`)).body.data;
      assert.deepEqual(plain.configs, [hostConfig, otherConfig]);
      assert.deepEqual(plain.config, {});

      const byName = (await get(`/services/${service}?configTypes=${encodeURIComponent(host.name)}`)).body.data;
      assert.deepEqual(byName.config, { [host.name]: { hostname: 'svc.example.com', port: 22 } });

      const byId = (await get(`/services/${service}?configTypes=${other.id}`)).body.data;
      assert.deepEqual(byId.config, { [other.name]: { level: 3 } });

      const repeated = (await get(`/services/${service}?configTypes=${host.id}&configTypes=${other.id}`)).body.data;
      assert.deepEqual(Object.keys(repeated.config).sort(), [host.name, other.name].sort());

      const all = (await get(`/services/${service}?configTypes=all`)).body.data;
      assert.deepEqual(Object.keys(all.config).sort(), [host.name, other.name].sort());

      const filter = encodeURIComponent(`id = "${service}"`);
      const listed = (await get(`/services?filter=${filter}&configTypes=${host.id},${other.id}`)).body.data;
      assert.equal(listed.length, 1);
      assert.deepEqual(Object.keys(listed[0].config).sort(), [host.name, other.name].sort());
    });

    it('refuses two configs of the same config type with 400 on configs', async () => {
      const type = await createType();
      const a = await createConfig(type.id);
      const b = await createConfig(type.id);
      const res = await post('/services', { name: unique('service'), encryptionRequired: true, configs: [a, b] });
      assertFieldError(res, 'configs', /Only one config of a given config type is allowed per service/);
      const service = await createService([a]);
      assertFieldError(await patch(`/services/${service}`, { configs: [a, b] }), 'configs');
    });

    it('refuses an unknown config id with 400 on configs', async () => {
      const res = await post('/services', { name: unique('service'), encryptionRequired: true, configs: ['no-such-config'] });
      assertFieldError(res, 'configs', /no config found with the given ids/);
    });

    it('lists the services of a config and the configs of a service', async () => {
      const type = await createType();
      const config = await createConfig(type.id);
      const first = await createService([config]);
      const second = await createService([config]);
      await createService();
      const services = await get(`/configs/${config}/services`);
      assert.equal(services.status, 200);
      assert.deepEqual(services.body.data.map((s: { id: string }) => s.id).sort(), [first, second].sort());
      const configs = await get(`/services/${first}/configs`);
      assert.equal(configs.status, 200);
      assert.deepEqual(configs.body.data.map((c: { id: string }) => c.id), [config]);
      assert.equal(configs.body.data[0].configType.id, type.id);
      assert.equal((await get('/configs/no-such-config/services')).status, 404);
      assert.equal((await get('/services/no-such-service/configs')).status, 404);
    });

    it('strips a deleted config from every service that lists it', async () => {
      const type = await createType();
      const other = await createType({ type: 'object' });
      const doomed = await createConfig(type.id);
      const kept = await createConfig(other.id, {});
      const service = await createService([doomed, kept]);
      assert.equal((await del(`/configs/${doomed}`)).status, 200);
      assert.deepEqual((await get(`/services/${service}`)).body.data.configs, [kept]);
      assert.equal((await get(`/services/${service}/configs`)).body.data.length, 1);
      assert.equal((await get(`/services?filter=${encodeURIComponent(`anyOf(configs) = "${doomed}"`)}`)).body.data.length, 0);
    });
  });

  describe('/identities/{id}/service-configs', () => {
    const pairsOf = (res: ApiResponse) =>
      (res.body.data as { serviceId: string; configId: string }[]).map((p) => `${p.serviceId}/${p.configId}`).sort();

    it('associates, lists, replaces by config type and removes overrides', async () => {
      const host = await createType();
      const other = await createType({ type: 'object' });
      const [h1, h2, o1] = [await createConfig(host.id), await createConfig(host.id), await createConfig(other.id, {})];
      const service = await createService([h1]);
      const identity = (await node.createUser(unique('user'))).id;
      const path = `/identities/${identity}/service-configs`;

      assert.equal((await post(path, [{ serviceId: service, configId: h1 }, { serviceId: service, configId: o1 }])).status, 200);
      const listed = await get(path);
      assert.equal(listed.status, 200);
      assert.deepEqual(pairsOf(listed), [`${service}/${h1}`, `${service}/${o1}`].sort());
      const entry = listed.body.data.find((p: { configId: string }) => p.configId === h1);
      assert.equal(entry.service.id, service);
      assert.equal(entry.service.entity, 'service');
      assert.equal(entry.config.id, h1);
      assert.equal(entry.config.entity, 'config');

      assert.equal((await post(path, [{ serviceId: service, configId: h2 }])).status, 200);
      assert.deepEqual(pairsOf(await get(path)), [`${service}/${h2}`, `${service}/${o1}`].sort());

      assert.equal((await del(path, [{ serviceId: service, configId: o1 }])).status, 200);
      assert.deepEqual(pairsOf(await get(path)), [`${service}/${h2}`]);

      assert.equal((await post(path, [{ serviceId: service, configId: o1 }])).status, 200);
      assert.equal((await del(path)).status, 200);
      assert.deepEqual((await get(path)).body.data, []);
    });

    it('refuses unknown services and configs with 400, unknown identities with 404', async () => {
      const type = await createType();
      const config = await createConfig(type.id);
      const service = await createService();
      const identity = (await node.createUser(unique('user'))).id;
      const path = `/identities/${identity}/service-configs`;
      assertFieldError(await post(path, [{ serviceId: 'no-such-service', configId: config }]), 'serviceConfigs[0].serviceId');
      assertFieldError(await post(path, [{ serviceId: service, configId: 'no-such-config' }]), 'serviceConfigs[0].configId');
      assertFieldError(await post(path, [{ serviceId: service }]), 'serviceConfigs[0].configId');
      assertFieldError(await post(path, { serviceId: service, configId: config }), 'serviceConfigs');
      assert.equal((await post('/identities/no-such-identity/service-configs', [{ serviceId: service, configId: config }])).status, 404);
      assert.equal((await get('/identities/no-such-identity/service-configs')).status, 404);
    });

    it("overrides the caller's service config map", async () => {
      const type = await createType();
      const base = await createConfig(type.id, { hostname: 'base.example.com' });
      const override = await createConfig(type.id, { hostname: 'override.example.com' });
      const service = await createService([base]);
      const me = (await get('/current-identity')).body.data.id as string;
      assert.equal((await post(`/identities/${me}/service-configs`, [{ serviceId: service, configId: override }])).status, 200);
      const detail = (await get(`/services/${service}?configTypes=${type.id}`)).body.data;
      assert.deepEqual(detail.config, { [type.name]: { hostname: 'override.example.com' } });
      assert.deepEqual(detail.configs, [base]);
      assert.equal((await del(`/identities/${me}/service-configs`)).status, 200);
    });

    it('removes the overrides of a deleted identity, service or config', async () => {
      const host = await createType();
      const other = await createType({ type: 'object' });
      const hostConfig = await createConfig(host.id);
      const otherConfig = await createConfig(other.id, {});
      const [s1, s2] = [await createService(), await createService()];
      const keep = (await node.createUser(unique('user'))).id;
      const doomed = (await node.createUser(unique('user'))).id;
      const body = [
        { serviceId: s1, configId: hostConfig },
        { serviceId: s2, configId: hostConfig },
        { serviceId: s2, configId: otherConfig },
      ];
      for (const identity of [keep, doomed]) assert.equal((await post(`/identities/${identity}/service-configs`, body)).status, 200);

      assert.equal((await del(`/identities/${doomed}`)).status, 200);
      assert.equal((await get(`/identities/${doomed}/service-configs`)).status, 404);
      assert.equal((await get(`/identities/${keep}/service-configs`)).body.data.length, 3);

      assert.equal((await del(`/services/${s1}`)).status, 200);
      assert.deepEqual(pairsOf(await get(`/identities/${keep}/service-configs`)), [`${s2}/${hostConfig}`, `${s2}/${otherConfig}`].sort());

      assert.equal((await del(`/configs/${otherConfig}`)).status, 200);
      assert.deepEqual(pairsOf(await get(`/identities/${keep}/service-configs`)), [`${s2}/${hostConfig}`]);

      assert.equal((await del(`/identities/${keep}`)).status, 200);
      assert.equal((await del(`/configs/${hostConfig}`)).status, 200);
    });
  });
});
