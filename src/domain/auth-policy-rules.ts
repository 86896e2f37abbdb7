// Write rules of auth policies beyond the declaration (BEHAVIOR.md §4.5): every leaf of
// `primary` and `secondary.requireTotp` is required on create and replace, a patch changes only
// the leaves it names, and the stored minimums apply. Pure; throws COULD_NOT_VALIDATE.

import { fieldError } from '../errors.js';
import type { Entity } from './commands.js';
import { PRIMARY_PROPERTIES } from './resources/auth-policies.js';
import type { WriteMode } from './validate.js';

type Section = Record<string, unknown>;

/** Upstream's persisted minimums: below them the value is raised, not refused. */
const MINIMUMS: Record<string, number> = { minPasswordLength: 5, maxAttempts: 0, lockoutDurationMinutes: 0 };

/** Normalises validated auth-policy values in place and sets `extJwtSignerIds`. */
export function prepareAuthPolicy(values: Record<string, unknown>, old: Entity | undefined, mode: WriteMode): void {
  const base = mode === 'patch' ? old : undefined;
  if (values.primary !== undefined) values.primary = preparePrimary(values.primary as Section, base?.primary as Section | undefined);
  if (values.secondary !== undefined) {
    values.secondary = prepareSecondary(values.secondary as Section, base?.secondary as Section | undefined);
  }
  values.extJwtSignerIds = signerIdsOf((values.primary ?? old?.primary) as Section, (values.secondary ?? old?.secondary) as Section);
}

/** Every signer id a policy names, each once: the foreign key kept for delete refusals. */
export function signerIdsOf(primary: Section | undefined, secondary: Section | undefined): string[] {
  const allowed = ((primary?.extJwt as Section | undefined)?.allowedSigners as string[] | undefined) ?? [];
  const required = secondary?.requireExtJwtSigner;
  return [...new Set([...allowed, ...(typeof required === 'string' ? [required] : [])])];
}

function preparePrimary(input: Section, base: Section | undefined): Section {
  const out: Section = {};
  for (const [method, spec] of Object.entries(PRIMARY_PROPERTIES)) {
    const given = input[method] as Section | null | undefined;
    const stored = base?.[method] as Section | undefined;
    const section = mergeLeaves(`primary.${method}`, Object.keys(spec.properties!), given ?? undefined, stored);
    out[method] = section;
  }
  const updb = out.updb as Section;
  for (const [leaf, minimum] of Object.entries(MINIMUMS)) updb[leaf] = Math.max(minimum, updb[leaf] as number);
  const extJwt = out.extJwt as Section;
  extJwt.allowedSigners = [...new Set(extJwt.allowedSigners as string[])];
  return out;
}

function prepareSecondary(input: Section, base: Section | undefined): Section {
  const out = mergeLeaves('secondary', ['requireTotp'], input, base);
  let signer: unknown = base?.requireExtJwtSigner ?? null;
  if ('requireExtJwtSigner' in input && input.requireExtJwtSigner !== undefined) signer = input.requireExtJwtSigner;
  out.requireExtJwtSigner = typeof signer === 'string' && signer.trim() !== '' ? signer : null;
  return out;
}

/** Takes each leaf from the input, else (patch) from the stored section; a leaf in neither is
 * missing. Null in a patch leaves the stored value as it is. */
function mergeLeaves(path: string, leaves: string[], given: Section | undefined, stored: Section | undefined): Section {
  const out: Section = {};
  for (const leaf of leaves) {
    const value = given?.[leaf] ?? stored?.[leaf];
    if (value === null || value === undefined) throw fieldError(`${path}.${leaf}`, null, `${path}.${leaf} is required`);
    out[leaf] = value;
  }
  return out;
}
