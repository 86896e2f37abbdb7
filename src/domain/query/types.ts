// Types shared by the query language (ZitiQL) parser, evaluator and planner. Pure: no I/O.

/** The value type of a symbol; drives how literals are compared against it. */
export type ValueType = 'string' | 'number' | 'bool' | 'datetime' | 'any';

/** What a filter may do with one symbol. */
export interface SymbolInfo {
  /** For a set symbol, the type of its elements. */
  type: ValueType;
  /** A set symbol (e.g. roleAttributes) may only be used inside anyOf/allOf/count/isEmpty/from. */
  set?: boolean;
  /** May appear in `sort by`; only an explicit `false` rejects the symbol there. */
  sortable?: boolean;
  /**
   * For a set symbol whose elements are entities: resolves the element's symbols, enabling
   * `from <symbol> where <query>`. Without it a subquery on the symbol is an error.
   */
  entity?: SymbolResolver;
}

/** Resolves a symbol name (e.g. `name`, `tags.location`); undefined means unknown symbol. */
export type SymbolResolver = (name: string) => SymbolInfo | undefined;

/** One `sort by` key. */
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
