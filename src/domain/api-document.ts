// The served API document: a Swagger 2.0 description derived from the resource declarations
// (paths, operationIds, envelopes and per-resource schemas in the upstream OpenZiti flavour).
// Pure: builds plain JSON-able data; secret fields never appear.

import { BASE_FIELDS, filterableFields, type FieldSpec, type Operation, type ResourceDecl } from './resource.js';

/** Inputs of {@link buildApiDocument}. */
export interface ApiDocumentOptions {
  /** The resources to describe; each contributes the paths of its declared `ops` only. */
  resources: readonly ResourceDecl[];
  /** URL prefix of every path, e.g. `/edge/management/v1`. */
  basePath: string;
  title: string;
  /** The API version reported in `info.version`. */
  version: string;
  /** Hand-written routes (e.g. `/authenticate`, `/version`) merged into `paths`; per-method wins. */
  extraPaths?: Record<string, unknown>;
}

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });

/** `api-session` → `ApiSession`. */
function pascal(kebab: string): string {
  return kebab
    .split('-')
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

function camel(kebab: string): string {
  const p = pascal(kebab);
  return p[0]!.toLowerCase() + p.slice(1);
}

/** Maps one declared field to a Swagger 2.0 schema. */
export function fieldSchema(spec: FieldSpec): Schema {
  const out = typeSchema(spec);
  if (spec.nullable && out.$ref === undefined) out['x-nullable'] = true;
  if (spec.description && out.$ref === undefined) out.description = spec.description;
  return out;
}

function typeSchema(spec: FieldSpec): Schema {
  switch (spec.type) {
    case 'string':
      return withBounds({ type: 'string' }, { minLength: spec.minLength, maxLength: spec.maxLength });
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return withBounds({ type: 'integer' }, { minimum: spec.min, maximum: spec.max });
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'enum':
      return { type: 'string', enum: [...(spec.values ?? [])] };
    case 'stringList':
      return { type: 'array', items: withBounds({ type: 'string' }, { maxLength: spec.maxLength }) };
    case 'tags':
      return ref('tags');
    case 'object':
      return spec.properties ? { type: 'object', properties: propertiesOf(spec.properties) } : { type: 'object' };
    case 'intMap':
      return { type: 'object', additionalProperties: withBounds({ type: 'integer' }, { minimum: spec.min, maximum: spec.max }) };
    case 'enumMap':
      return { type: 'object', additionalProperties: { type: 'string', enum: [...(spec.values ?? [])] } };
  }
}

function withBounds(schema: Schema, bounds: Record<string, number | undefined>): Schema {
  for (const [key, value] of Object.entries(bounds)) if (value !== undefined) schema[key] = value;
  return schema;
}

function propertiesOf(fields: Record<string, FieldSpec>): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const [name, spec] of Object.entries(fields)) if (!spec.secret) out[name] = fieldSchema(spec);
  return out;
}

/** The body schema for create / replace / patch: client-writable, non-secret fields only. */
function bodySchema(decl: ResourceDecl, mode: 'create' | 'replace' | 'patch'): Schema {
  const fields: Record<string, FieldSpec> = {};
  for (const [name, spec] of Object.entries({ ...BASE_FIELDS, ...decl.fields })) {
    if ((spec.write ?? 'client') !== 'client' || spec.secret) continue;
    if (spec.createOnly && mode !== 'create') continue;
    fields[name] = spec;
  }
  const schema: Schema = { type: 'object', properties: propertiesOf(fields) };
  const required = Object.keys(fields).filter((name) => fields[name]!.required);
  if (mode !== 'patch' && required.length > 0) schema.required = required;
  return schema;
}

function detailSchema(decl: ResourceDecl): Schema {
  const own = Object.fromEntries(Object.entries(decl.fields).filter(([, spec]) => !spec.secret));
  const part: Schema = { type: 'object', properties: propertiesOf(own) };
  const required = Object.keys(own).filter((name) => own[name]!.required);
  if (required.length > 0) part.required = required;
  return { type: 'object', description: decl.description, allOf: [ref('baseEntity'), part] };
}

const envelope = (data: Schema, required = true): Schema => ({
  type: 'object',
  properties: { data, meta: ref('meta') },
  ...(required ? { required: ['meta', 'data'] } : {}),
});

/** Definitions shared by every resource (envelopes, meta, errors, links, tags). */
function sharedDefinitions(): Record<string, Schema> {
  const base = Object.fromEntries(Object.entries(BASE_FIELDS).filter(([, f]) => !f.secret));
  return {
    baseEntity: {
      type: 'object',
      description: 'Fields shared by all entities',
      properties: { ...propertiesOf(base), _links: ref('links') },
      required: ['id', 'createdAt', 'updatedAt', '_links'],
    },
    tags: {
      type: 'object',
      description: 'A map of user defined fields and values: null, string, number or boolean',
      additionalProperties: true,
      'x-nullable': true,
    },
    links: { type: 'object', description: 'A map of named links', additionalProperties: ref('link') },
    link: {
      type: 'object',
      description: 'A link to another resource',
      properties: { href: { type: 'string', format: 'uri' }, method: { type: 'string' }, comment: { type: 'string' } },
      required: ['href'],
    },
    pagination: {
      type: 'object',
      properties: {
        limit: { type: 'number', format: 'int64' },
        offset: { type: 'number', format: 'int64' },
        totalCount: { type: 'number', format: 'int64' },
      },
      required: ['limit', 'offset', 'totalCount'],
    },
    meta: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        apiEnrollmentVersion: { type: 'string' },
        filterableFields: { type: 'array', items: { type: 'string' } },
        pagination: ref('pagination'),
      },
    },
    createLocation: { type: 'object', properties: { id: { type: 'string' }, _links: ref('links') } },
    createEnvelope: envelope(ref('createLocation'), false),
    empty: envelope({ type: 'object', example: {} }),
    apiError: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        cause: { type: 'object', additionalProperties: true },
        causeMessage: { type: 'string' },
        requestId: { type: 'string' },
      },
    },
    apiErrorEnvelope: { type: 'object', properties: { error: ref('apiError'), meta: ref('meta') }, required: ['meta', 'error'] },
  };
}

const RESPONSE_TEXT: Record<string, string> = {
  '400': 'The supplied request contains invalid fields or could not be parsed',
  '401': 'The supplied session does not have the correct access rights to request this resource',
  '404': 'The requested resource does not exist',
  '429': 'The entity is busy (its mailbox is full); retry later',
};

function responses(ok: { status: string; description: string; schema: string }, errors: string[]): Schema {
  const out: Schema = { [ok.status]: { description: ok.description, schema: ref(ok.schema) } };
  for (const status of errors) out[status] = { description: RESPONSE_TEXT[status], schema: ref('apiErrorEnvelope') };
  return out;
}

const bodyParam = (decl: ResourceDecl, schema: string, description: string): Schema => ({
  name: camel(decl.entity),
  in: 'body',
  required: true,
  description,
  schema: ref(schema),
});

/** Builds one operation object; `security: []` marks an operation that needs no session. */
function operation(decl: ResourceDecl, op: Operation, fields: Schema): Schema {
  const access = decl.ops[op];
  return { ...fields, tags: [decl.kind], security: access === 'none' ? [] : [{ ztSession: [] }] };
}

/** The paths and definitions contributed by one resource. */
function resourceParts(decl: ResourceDecl): { paths: Record<string, Schema>; definitions: Record<string, Schema> } {
  const Entity = pascal(decl.entity);
  const Plural = pascal(decl.kind);
  const entity = camel(decl.entity);
  const ops = decl.ops;
  const definitions: Record<string, Schema> = {};
  const collection: Schema = {};
  const item: Schema = {};
  const writeErrors = ['400', '401', '404', '429'];

  if (ops.list || ops.get) definitions[`${entity}Detail`] = detailSchema(decl);
  if (ops.list) {
    definitions[`${entity}List`] = { type: 'array', items: ref(`${entity}Detail`) };
    definitions[`list${Plural}Envelope`] = envelope(ref(`${entity}List`));
    collection.get = operation(decl, 'list', {
      operationId: `list${Plural}`,
      summary: `List ${decl.kind}`,
      description: `${decl.description}. Filterable fields: ${filterableFields(decl).join(', ')}.`,
      parameters: [
        { name: 'filter', in: 'query', type: 'string' },
        { name: 'limit', in: 'query', type: 'integer' },
        { name: 'offset', in: 'query', type: 'integer' },
      ],
      responses: responses({ status: '200', description: `A list of ${decl.kind}`, schema: `list${Plural}Envelope` }, ['400', '401']),
    });
  }
  if (ops.create) {
    definitions[`${entity}Create`] = { ...bodySchema(decl, 'create'), description: `A ${decl.entity} to create` };
    collection.post = operation(decl, 'create', {
      operationId: `create${Entity}`,
      summary: `Create a ${decl.entity}`,
      parameters: [bodyParam(decl, `${entity}Create`, `A ${decl.entity} to create`)],
      responses: responses({ status: '201', description: 'The resource has been created', schema: 'createEnvelope' }, ['400', '401', '429']),
    });
  }
  if (ops.get) {
    definitions[`detail${Entity}Envelope`] = envelope(ref(`${entity}Detail`));
    item.get = operation(decl, 'get', {
      operationId: `detail${Entity}`,
      summary: `Retrieves a single ${decl.entity}`,
      responses: responses({ status: '200', description: `A single ${decl.entity}`, schema: `detail${Entity}Envelope` }, ['401', '404']),
    });
  }
  if (ops.replace) {
    definitions[`${entity}Update`] = bodySchema(decl, 'replace');
    item.put = operation(decl, 'replace', {
      operationId: `update${Entity}`,
      summary: `Update all fields on a ${decl.entity}`,
      parameters: [bodyParam(decl, `${entity}Update`, `A ${decl.entity} update object`)],
      responses: responses({ status: '200', description: 'The resource has been replaced', schema: 'empty' }, writeErrors),
    });
  }
  if (ops.patch) {
    definitions[`${entity}Patch`] = bodySchema(decl, 'patch');
    item.patch = operation(decl, 'patch', {
      operationId: `patch${Entity}`,
      summary: `Update the supplied fields on a ${decl.entity}`,
      parameters: [bodyParam(decl, `${entity}Patch`, `A ${decl.entity} patch object`)],
      responses: responses({ status: '200', description: 'The resource has been patched', schema: 'empty' }, writeErrors),
    });
  }
  if (ops.delete) {
    item.delete = operation(decl, 'delete', {
      operationId: `delete${Entity}`,
      summary: `Delete a ${decl.entity}`,
      responses: responses({ status: '200', description: 'The resource has been deleted', schema: 'empty' }, writeErrors),
    });
  }

  const paths: Record<string, Schema> = {};
  if (Object.keys(collection).length > 0) paths[`/${decl.kind}`] = collection;
  if (Object.keys(item).length > 0) {
    const id = { name: 'id', in: 'path', required: true, type: 'string', description: 'The id of the requested resource' };
    paths[`/${decl.kind}/{id}`] = { parameters: [id], ...item };
  }
  return { paths, definitions };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Builds the Swagger 2.0 document served at `<basePath>/spec`-style routes. A resource with no
 * declared ops contributes nothing; definitions are emitted only for the operations declared.
 */
export function buildApiDocument(opts: ApiDocumentOptions): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const definitions: Record<string, Schema> = sharedDefinitions();
  const tags: Schema[] = [];
  for (const decl of opts.resources) {
    const parts = resourceParts(decl);
    if (Object.keys(parts.paths).length === 0) continue;
    Object.assign(paths, parts.paths);
    Object.assign(definitions, parts.definitions);
    tags.push({ name: decl.kind, description: decl.description });
  }
  for (const [path, value] of Object.entries(opts.extraPaths ?? {})) {
    const existing = paths[path];
    paths[path] = isPlainObject(existing) && isPlainObject(value) ? { ...existing, ...value } : value;
  }
  return {
    swagger: '2.0',
    info: { title: opts.title, version: opts.version },
    basePath: opts.basePath,
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json'],
    securityDefinitions: {
      ztSession: { type: 'apiKey', in: 'header', name: 'zt-session', description: 'An API key returned by authentication' },
    },
    tags,
    paths,
    definitions,
  };
}
