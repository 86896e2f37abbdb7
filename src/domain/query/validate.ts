// Semantic checks on a parsed query, in upstream's order: symbols (unknown, set misuse,
// subquery targets), then operand types per operator, then sort keys. Throws QueryError.

import { SORT_MAX, type Expr, type Literal, type Operand, type Query, type SetExpr } from './ast.js';
import { QueryError } from './errors.js';
import type { SymbolInfo, SymbolResolver, ValueType } from './types.js';

/**
 * Validates a parsed query (and its subqueries) against the symbols of its entity, then
 * drops sort keys past SORT_MAX (all keys are validated first, as upstream does).
 */
export function validateQuery(query: Query, resolve: SymbolResolver): void {
  checkSymbols(query, resolve);
  checkTypes(query, resolve);
  finishSort(query, resolve);
}

function known(resolve: SymbolResolver, symbol: string): SymbolInfo {
  const info = resolve(symbol);
  if (!info) throw new QueryError(`unknown symbol '${symbol}'`);
  return info;
}

function scalar(resolve: SymbolResolver, symbol: string): SymbolInfo {
  const info = known(resolve, symbol);
  if (info.set) throw new QueryError(`symbol '${symbol}' is a set symbol but is used in non-set function context`);
  return info;
}

function setSymbol(resolve: SymbolResolver, symbol: string, fn: string): SymbolInfo {
  const info = known(resolve, symbol);
  if (!info.set) throw new QueryError(`symbol '${symbol}' is not a set symbol but is used in set function ${fn}`);
  return info;
}

/** The resolver of a subquery's elements; the target must be an entity set symbol. */
function subResolver(resolve: SymbolResolver, symbol: string): SymbolResolver {
  const entity = resolve(symbol)?.entity;
  if (!entity) throw new QueryError(`attempt to subquery on non-entity symbol ${symbol}`);
  return entity;
}

// ---- pass 1: symbols ----

function checkSymbols(query: Query, resolve: SymbolResolver): void {
  if (query.filter) symbolsOf(query.filter, resolve);
  for (const key of query.sort) scalar(resolve, key.field);
}

function symbolsOf(expr: Expr, resolve: SymbolResolver): void {
  switch (expr.kind) {
    case 'and':
    case 'or':
      expr.args.forEach((e) => symbolsOf(e, resolve));
      return;
    case 'not':
      symbolsOf(expr.arg, resolve);
      return;
    case 'boolSymbol':
      scalar(resolve, expr.symbol);
      return;
    case 'isEmpty':
      setSymbols(expr.set, resolve, 'isEmpty');
      return;
    case 'compare':
    case 'in':
    case 'between':
      operandSymbols(expr.lhs, resolve);
      return;
    case 'const':
      return;
  }
}

function operandSymbols(lhs: Operand, resolve: SymbolResolver): void {
  if (lhs.kind === 'symbol') scalar(resolve, lhs.symbol);
  else if (lhs.kind === 'count') setSymbols(lhs.set, resolve, 'count');
  else setSymbol(resolve, lhs.symbol, lhs.kind);
}

function setSymbols(set: SetExpr, resolve: SymbolResolver, fn: string): void {
  if (set.kind === 'set') {
    setSymbol(resolve, set.symbol, fn);
    return;
  }
  const inner = subResolver(resolve, set.symbol);
  setSymbol(resolve, set.symbol, fn);
  checkSymbols(set.query, inner);
}

// ---- pass 2: types ----

function checkTypes(query: Query, resolve: SymbolResolver): void {
  if (query.filter) typesOf(query.filter, resolve);
}

function typesOf(expr: Expr, resolve: SymbolResolver): void {
  switch (expr.kind) {
    case 'and':
    case 'or':
      expr.args.forEach((e) => typesOf(e, resolve));
      return;
    case 'not':
      typesOf(expr.arg, resolve);
      return;
    case 'boolSymbol': {
      const type = resolve(expr.symbol)?.type;
      if (type !== 'bool' && type !== 'any') {
        throw new QueryError(`symbol '${expr.symbol}' of type ${type} cannot be used as a boolean expression`);
      }
      return;
    }
    case 'isEmpty':
      subqueryTypes(expr.set, resolve);
      return;
    case 'compare':
      compareTypes(expr, resolve);
      return;
    case 'in':
      inTypes(expr, resolve);
      return;
    case 'between':
      betweenTypes(expr, resolve);
      return;
    case 'const':
      return;
  }
}

function subqueryTypes(set: SetExpr, resolve: SymbolResolver): void {
  if (set.kind !== 'subquery') return;
  const inner = subResolver(resolve, set.symbol);
  checkTypes(set.query, inner);
  finishSort(set.query, inner);
}

/** The value type an operand yields: a symbol's (element) type, or number for count(). */
function operandType(lhs: Operand, resolve: SymbolResolver): ValueType {
  if (lhs.kind === 'count') {
    subqueryTypes(lhs.set, resolve);
    return 'number';
  }
  return resolve(lhs.symbol)?.type ?? 'any';
}

function compareTypes(expr: Extract<Expr, { kind: 'compare' }>, resolve: SymbolResolver): void {
  const lhsType = operandType(expr.lhs, resolve);
  const rhsType = expr.rhs.type;
  const fail = () => typeError(expr.lhs, expr.op, literalText(expr.rhs), lhsType, rhsType);
  if (rhsType === 'null') {
    if ((expr.op !== '=' && expr.op !== '!=') || expr.lhs.kind === 'count') fail();
    return;
  }
  if (expr.op.endsWith('contains')) {
    if (lhsType !== 'string' && lhsType !== 'number' && lhsType !== 'any') fail();
    return;
  }
  const effective = lhsType === 'any' ? rhsType : lhsType;
  if (effective !== rhsType) fail();
  if (effective === 'bool' && expr.op !== '=' && expr.op !== '!=') fail();
}

function inTypes(expr: Extract<Expr, { kind: 'in' }>, resolve: SymbolResolver): void {
  const lhsType = operandType(expr.lhs, resolve);
  const rhsType = expr.values[0].type;
  if (lhsType !== 'any' && lhsType !== rhsType) {
    const op = expr.negated ? 'not in' : 'in';
    typeError(expr.lhs, op, `[${expr.values.map(literalText).join(', ')}]`, lhsType, rhsType);
  }
}

function betweenTypes(expr: Extract<Expr, { kind: 'between' }>, resolve: SymbolResolver): void {
  const lhsType = operandType(expr.lhs, resolve);
  const rhsType = expr.lower.type;
  if (lhsType !== 'any' && lhsType !== rhsType) {
    throw new QueryError(
      `operation between is not supported with operands types ${lhsType}, ${rhsType}, ${expr.upper.type}`,
    );
  }
}

function typeError(lhs: Operand, op: string, rhs: string, lhsType: string, rhsType: string): never {
  throw new QueryError(
    `operation ${operandText(lhs)} ${op} ${rhs} is not supported with operands types ${lhsType}, ${rhsType}`,
  );
}

function operandText(lhs: Operand): string {
  if (lhs.kind !== 'count') return lhs.symbol;
  return `count(${lhs.set.symbol})`;
}

/** A literal as upstream prints it in messages (strings unquoted). */
export function literalText(lit: Literal): string {
  switch (lit.type) {
    case 'null':
      return 'null';
    case 'datetime':
      return lit.text;
    default:
      return String(lit.value);
  }
}

// ---- pass 3: sort ----

/** Rejects non-sortable keys, then keeps the first SORT_MAX keys. */
function finishSort(query: Query, resolve: SymbolResolver): void {
  for (const key of query.sort) {
    if (resolve(key.field)?.sortable === false) throw new QueryError(`symbol '${key.field}' is not sortable`);
  }
  query.sort = query.sort.slice(0, SORT_MAX);
}
