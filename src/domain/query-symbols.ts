// The query symbols of a declared resource: which names a filter may use, with their types,
// set-ness and sortability. Unknown or non-public names resolve to undefined.

import type { SymbolInfo, ValueType } from './query/types.js';
import { declarationOf } from './registry.js';
import { fieldsOf, type FieldSpec } from './resource.js';

function valueType(spec: FieldSpec): ValueType {
  switch (spec.type) {
    case 'boolean':
      return 'bool';
    case 'integer':
      return 'number';
    case 'datetime':
      return 'datetime';
    case 'string':
    case 'enum':
    case 'stringList':
      return 'string';
    default:
      return 'any';
  }
}

/** Resolves a symbol for `kind`; `tags.<key>` is allowed because tags are public. */
export function resolveSymbol(kind: string, name: string): SymbolInfo | undefined {
  const fields = fieldsOf(declarationOf(kind));
  if (name.startsWith('tags.') && name.length > 5) return { type: 'any', sortable: true };
  const spec = fields[name];
  if (!spec || !spec.filterable || spec.secret) return undefined;
  return { type: valueType(spec), set: spec.type === 'stringList', sortable: Boolean(spec.sortable) };
}

/** True for a sortable scalar field (index order can serve `sort by` on it). */
export function sortableScalar(kind: string, field: string): boolean {
  const spec = fieldsOf(declarationOf(kind))[field];
  return Boolean(spec?.sortable) && spec.type !== 'stringList';
}
