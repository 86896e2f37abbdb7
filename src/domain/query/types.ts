// Types shared by the query language (ZitiQL) parser, evaluator and planner. Pure: no I/O.

/** The value type of a symbol; drives how literals are compared against it. */
export type ValueType = 'string' | 'number' | 'bool' | 'datetime' | 'any';

export interface SymbolInfo {
  type: ValueType;
  /** A set symbol (e.g. roleAttributes) may only be used inside anyOf/allOf/count/isEmpty/from. */
  set?: boolean;
  /** May appear in `sort by`. */
  sortable?: boolean;
}

/** Resolves a symbol name (e.g. `name`, `tags.location`); undefined means unknown symbol. */
export type SymbolResolver = (name: string) => SymbolInfo | undefined;

export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
}

/**
 * Reads a symbol's value from the record being tested: a scalar, an array for set symbols,
 * undefined/null when missing. Datetime values may be ISO-8601 strings, Dates or epoch ms.
 * For a `from <set> where ...` subquery the getter returns an array of plain objects.
 */
export type ValueGetter = (symbol: string) => unknown;
