// Tests for the served API document derived from the resource declarations: operations per
// declared op, body schemas, secrets kept out, every $ref resolvable, JSON round-trip.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApiDocument } from '../../../src/domain/api-document.js';
import { RESOURCES } from '../../../src/domain/registry.js';

type Json = Record<string, any>;

function build(extraPaths?: Record<string, unknown>): Json {
  return buildApiDocument({
    resources: RESOURCES,
    basePath: '/edge/management/v1',
    title: 'Weft Edge Management',
    version: '0.1.0',
    ...(extraPaths ? { extraPaths } : {}),
  }) as Json;
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

describe('buildApiDocument', () => {
  it('is a Swagger 2.0 document with the ztSession apiKey scheme', () => {
    const doc = build();
    assert.equal(doc.swagger, '2.0');
    assert.equal(doc.basePath, '/edge/management/v1');
    assert.deepEqual(doc.info, { title: 'Weft Edge Management', version: '0.1.0' });
    assert.equal(doc.securityDefinitions.ztSession.type, 'apiKey');
    assert.equal(doc.securityDefinitions.ztSession.in, 'header');
    assert.equal(doc.securityDefinitions.ztSession.name, 'zt-session');
  });

  it('gives identities all six operations with upstream operationIds', () => {
    const doc = build();
    const collection = doc.paths['/identities'];
    const item = doc.paths['/identities/{id}'];
    assert.equal(collection.get.operationId, 'listIdentities');
    assert.equal(collection.post.operationId, 'createIdentity');
    assert.equal(item.get.operationId, 'detailIdentity');
    assert.equal(item.put.operationId, 'updateIdentity');
    assert.equal(item.patch.operationId, 'patchIdentity');
    assert.equal(item.delete.operationId, 'deleteIdentity');
    for (const op of [collection.get, collection.post, item.get, item.put, item.patch, item.delete]) {
      assert.deepEqual(op.tags, ['identities']);
      assert.deepEqual(op.security, [{ ztSession: [] }]);
    }
  });

  it('lists with filter, limit and offset and answers the list envelope', () => {
    const list = build().paths['/identities'].get;
    assert.deepEqual(list.parameters.map((p: Json) => `${p.in}:${p.name}`).sort(), ['query:filter', 'query:limit', 'query:offset']);
    assert.equal(list.responses['200'].schema.$ref, '#/definitions/listIdentitiesEnvelope');
    assert.equal(list.responses['400'].schema.$ref, '#/definitions/apiErrorEnvelope');
    assert.equal(list.responses['401'].schema.$ref, '#/definitions/apiErrorEnvelope');
  });

  it('answers create with 201 createEnvelope and detail with detailIdentityEnvelope or 404', () => {
    const doc = build();
    assert.equal(doc.paths['/identities'].post.responses['201'].schema.$ref, '#/definitions/createEnvelope');
    const detail = doc.paths['/identities/{id}'].get;
    assert.equal(detail.responses['200'].schema.$ref, '#/definitions/detailIdentityEnvelope');
    assert.equal(detail.responses['404'].schema.$ref, '#/definitions/apiErrorEnvelope');
    assert.equal(doc.paths['/identities/{id}'].parameters[0].name, 'id');
    assert.equal(doc.paths['/identities/{id}'].parameters[0].in, 'path');
  });

  it('requires name, type and isAdmin in identityCreate and identityUpdate, nothing in identityPatch', () => {
    const defs = build().definitions;
    assert.deepEqual([...defs.identityCreate.required].sort(), ['isAdmin', 'name', 'type']);
    assert.deepEqual([...defs.identityUpdate.required].sort(), ['isAdmin', 'name', 'type']);
    assert.equal(defs.identityPatch.required, undefined);
  });

  it('keeps server-written, ignored and create-only fields out of the right bodies', () => {
    const defs = build().definitions;
    assert.ok(defs.identityCreate.properties.enrollment, 'enrollment is accepted on create');
    assert.equal(defs.identityUpdate.properties.enrollment, undefined);
    assert.equal(defs.identityPatch.properties.enrollment, undefined);
    for (const name of ['id', 'createdAt', 'typeId', 'disabledAt', 'isDefaultAdmin', 'envInfo']) {
      assert.equal(defs.identityCreate.properties[name], undefined, name);
    }
    assert.ok(defs.identityCreate.properties.tags, 'tags is client-writable');
  });

  it('maps field types to Swagger schemas', () => {
    const defs = build().definitions;
    const props = defs.identityDetail.allOf[1].properties;
    assert.deepEqual(props.name, { type: 'string', minLength: 1, maxLength: 1024 });
    assert.deepEqual(props.isAdmin, { type: 'boolean' });
    assert.deepEqual(props.defaultHostingCost, { type: 'integer', minimum: 0, maximum: 65535 });
    assert.deepEqual(props.disabledAt, { type: 'string', format: 'date-time', 'x-nullable': true });
    assert.deepEqual(props.type.enum, ['User', 'Device', 'Service', 'Router', 'Default']);
    assert.deepEqual(props.roleAttributes, { type: 'array', items: { type: 'string', maxLength: 1024 } });
    assert.deepEqual(props.appData, { $ref: '#/definitions/tags' });
    assert.deepEqual(props.enrollment.properties.ott, { type: 'boolean' });
    assert.deepEqual(props.serviceHostingCosts.additionalProperties, { type: 'integer', minimum: 0, maximum: 65535 });
    assert.deepEqual(props.serviceHostingPrecedences.additionalProperties, { type: 'string', enum: ['default', 'required', 'failed'] });
    assert.equal(defs.identityDetail.allOf[0].$ref, '#/definitions/baseEntity');
    assert.deepEqual(Object.keys(defs.baseEntity.properties).sort(), ['_links', 'createdAt', 'id', 'tags', 'updatedAt']);
  });

  it('never mentions secret fields', () => {
    const text = JSON.stringify(build());
    for (const secret of ['passwordHash', 'tokenHash', 'salt']) {
      assert.equal(text.includes(secret), false, `${secret} leaked into the document`);
    }
    const apiSession = build().definitions.apiSessionDetail.allOf[1].properties;
    assert.ok(apiSession.identityId, 'non-secret api-session fields are presented');
  });

  it('resolves every $ref to an existing definition', () => {
    const doc = build();
    const refs = collectRefs(doc);
    assert.ok(refs.length > 20, 'the document uses references');
    const missing = refs.filter((r) => !r.startsWith('#/definitions/') || !(r.slice('#/definitions/'.length) in doc.definitions));
    assert.deepEqual([...new Set(missing)], []);
  });

  it('gives a list/get-only resource no write operations', () => {
    const doc = build();
    assert.deepEqual(Object.keys(doc.paths['/identity-types']), ['get']);
    assert.equal(doc.paths['/identity-types'].get.operationId, 'listIdentityTypes');
    assert.deepEqual(Object.keys(doc.paths['/identity-types/{id}']).sort(), ['get', 'parameters']);
    assert.equal(doc.paths['/identity-types/{id}'].get.operationId, 'detailIdentityType');
    assert.equal(doc.definitions.identityTypeCreate, undefined);
  });

  it('leaves out resources with no declared operations', () => {
    const doc = build();
    assert.equal(doc.paths['/identity-service-configs'], undefined);
    assert.equal(doc.definitions.identityServiceConfigDetail, undefined);
  });

  it('merges extraPaths into paths', () => {
    const version = { get: { operationId: 'listVersion', security: [], responses: { '200': { description: 'ok' } } } };
    const doc = build({ '/version': version });
    assert.deepEqual(doc.paths['/version'], version);
    assert.ok(doc.paths['/identities'], 'generated paths stay');
  });

  it('round-trips through JSON unchanged', () => {
    const doc = build();
    assert.deepEqual(JSON.parse(JSON.stringify(doc)), doc);
  });
});
