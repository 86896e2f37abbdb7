// Shared symbol table for the ZitiQL unit tests: a small identity-like entity with a policy
// subquery target. Not a test file itself.

import type { SymbolInfo, SymbolResolver } from '../../../../src/domain/query/index.js';

const POLICY_SYMBOLS: Record<string, SymbolInfo> = {
  id: { type: 'string', sortable: true },
  name: { type: 'string', sortable: true },
  semantic: { type: 'string' },
  identities: { type: 'string', set: true },
};

/** Symbols of an edge-router policy, the elements of `edgeRouterPolicies`. */
export const policySymbols: SymbolResolver = (name) => POLICY_SYMBOLS[name];

const IDENTITY_SYMBOLS: Record<string, SymbolInfo> = {
  id: { type: 'string', sortable: true },
  name: { type: 'string', sortable: true },
  age: { type: 'number', sortable: true },
  score: { type: 'number', sortable: true },
  isAdmin: { type: 'bool', sortable: true },
  createdAt: { type: 'datetime', sortable: true },
  secret: { type: 'string', sortable: false },
  roleAttributes: { type: 'string', set: true },
  scores: { type: 'number', set: true },
  edgeRouterPolicies: { type: 'string', set: true, entity: policySymbols },
  'tags.location': { type: 'any', sortable: true },
};

/** Symbols of the identity-like test entity; `tags.<key>` resolves as type any. */
export const symbols: SymbolResolver = (name) =>
  Object.hasOwn(IDENTITY_SYMBOLS, name) ? IDENTITY_SYMBOLS[name] : name.startsWith('tags.') ? { type: 'any' } : undefined;
