// JSON Schema handling for config types and configs (ajv): checks that a config type's schema
// compiles, and validates config data against it with validators cached per type version.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Entity } from '../domain/commands.js';
import { fieldError } from '../errors.js';
import { linearRegExp } from './linear-regexp.js';

type Engine = Ajv | Ajv2019 | Ajv2020;

/** Compiled validators kept per config type version (id + updatedAt); oldest dropped first. */
const CACHE_SIZE = 256;

// allErrors false: the first error is the one reported. strict false: unknown keywords and
// formats are ignored (as upstream's validator does). addUsedSchema false: many config types
// may carry the same `$id` (versions of one schema) without clashing inside one ajv instance.
// `pattern` and `patternProperties` run on the linear-time engine (linear-regexp.ts).
const OPTIONS = { allErrors: false, strict: false, logger: false, addUsedSchema: false, code: { regExp: linearRegExp } } as const;

export class ConfigSchemas {
  private readonly engines = new Map<string, Engine>();
  private readonly validators = new Map<string, ValidateFunction>();

  /** Throws 400 on `schema` unless it is a JSON Schema ajv can compile. */
  checkSchema(schema: Record<string, unknown>): void {
    const engine = this.engineFor(schema);
    if (!engine.validateSchema(schema)) {
      throw fieldError('schema', schema, engine.errorsText(engine.errors, { dataVar: 'schema' }));
    }
    try {
      engine.compile(schema);
    } catch (err) {
      throw fieldError('schema', schema, (err as Error).message);
    }
  }

  /** Throws 400 with `cause.field` = `data` plus the failing path when data does not match. */
  validate(configType: Entity, data: unknown): void {
    const validator = this.validatorFor(configType);
    if (validator(data)) return;
    const error = validator.errors?.[0];
    if (!error) throw fieldError('data', data, 'data does not match the config type schema');
    const { path, value } = locateError(data, error);
    throw fieldError(path, value, error.message ?? 'data does not match the config type schema');
  }

  private validatorFor(configType: Entity): ValidateFunction {
    const key = `${configType.id}\u0000${configType.updatedAt}`;
    const cached = this.validators.get(key);
    if (cached) return cached;
    const schema = (configType.schema ?? {}) as Record<string, unknown>;
    let validator: ValidateFunction;
    try {
      validator = this.engineFor(schema).compile(schema);
    } catch (err) {
      // Only reachable for schemas stored before they were checked; the config cannot be valid.
      throw fieldError('configTypeId', configType.id, `the config type schema does not compile: ${(err as Error).message}`);
    }
    if (this.validators.size >= CACHE_SIZE) this.validators.delete(this.validators.keys().next().value!);
    this.validators.set(key, validator);
    return validator;
  }

  /** The ajv flavour for the schema's `$schema` dialect (draft-07 when absent). */
  private engineFor(schema: Record<string, unknown>): Engine {
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    const name = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : '07';
    let engine = this.engines.get(name);
    if (!engine) {
      engine = name === '2020' ? new Ajv2020(OPTIONS) : name === '2019' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
      this.engines.set(name, engine);
    }
    return engine;
  }
}

/**
 * Where the first error is: `data` plus the instance path, dotted with array indexes in brackets
 * (`data.ports[1].port`); for a missing or unexpected property the path ends at that property.
 */
export function locateError(data: unknown, error: ErrorObject): { path: string; value: unknown } {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const named = error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined;
  if (named !== undefined) segments.push(named);
  let path = 'data';
  let value: unknown = data;
  for (const segment of segments) {
    path += Array.isArray(value) ? `[${segment}]` : `.${segment}`;
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return { path, value: value ?? null };
}
