// ZitiQL recursive-descent parser: tokens → untyped AST (symbols not yet resolved).
// Follows upstream's grammar, including where whitespace is required or forbidden, and reports
// only the first syntax error as `Unexpected symbol: "x" at line: L column: C`.

import type { CompareOp, Expr, Literal, Operand, Query, SetExpr } from './ast.js';
import { parseRfc3339 } from './datetime.js';
import { QueryError } from './errors.js';
import { tokenize, type Token, type TokenKind } from './lexer.js';
import type { SortKey } from './types.js';

/** Whitespace before a token: any, at least one character, or none at all. */
type WsRule = 'any' | 'required' | 'none';

const OPERATORS = new Set<TokenKind>(['cmp', 'contains', 'icontains', 'in', 'between']);
const CLAUSES = new Set<TokenKind>(['sort', 'skip', 'limit']);
const ORDER_OPERANDS: TokenKind[] = ['string', 'number', 'datetime'];
const EQUALITY_OPERANDS: TokenKind[] = [...ORDER_OPERANDS, 'bool', 'null'];
const PREC_OR = 1;
const PREC_AND = 2;
/** The deepest nesting of parentheses, `not`s and subqueries a filter may have. */
export const MAX_FILTER_DEPTH = 32;

/** Parses a whole filter (non-blank) into an untyped query; throws QueryError. */
export function parseSyntax(text: string): Query {
  return new Parser(tokenize(text)).parseTop();
}

class Parser {
  private pos = 0;
  /** Parentheses, `not`s and subqueries open around the current token (capped). */
  private depth = 0;
  /** Conversion errors (impossible dates, non-integer skip) surface only if the parse succeeds. */
  private deferred: QueryError | undefined;

  constructor(private readonly tokens: Token[]) {}

  parseTop(): Query {
    const query = this.parseQuery();
    this.expect('eof', 'any');
    if (this.deferred) throw this.deferred;
    return query;
  }

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private next(): Token {
    return this.tokens[this.pos++];
  }

  private fail(token: Token): never {
    throw new QueryError(`Unexpected symbol: "${token.text}" at line: ${token.line} column: ${token.col}`);
  }

  /** Checks the whitespace rule for the next token, without consuming it. */
  private spacing(rule: WsRule): Token {
    const token = this.peek();
    if (rule === 'none' && token.ws) this.fail({ ...token, ...token.ws, text: token.ws.ch[0] });
    if (rule === 'required' && !token.ws) this.fail(token);
    return token;
  }

  private expect(kind: TokenKind, rule: WsRule): Token {
    const token = this.spacing(rule);
    if (token.kind !== kind) this.fail(token);
    return this.next();
  }

  /** query: boolExpr? (WS+ sort by ...)? (WS+ skip N)? (WS+ limit N|none)? — at least one part. */
  private parseQuery(): Query {
    const query: Query = { filter: null, sort: [] };
    let started = false;
    if (!CLAUSES.has(this.peek().kind)) {
      query.filter = this.parseBool(PREC_OR);
      started = true;
    }
    const rule = (): WsRule => (started ? 'required' : 'any');
    if (this.peek().kind === 'sort' && (!started || this.peek().ws)) {
      this.spacing(rule());
      query.sort = this.parseSortBy();
      started = true;
    }
    if (this.peek().kind === 'skip' && (!started || this.peek().ws)) {
      this.spacing(rule());
      query.skip = this.parseSkip();
      started = true;
    }
    if (this.peek().kind === 'limit' && (!started || this.peek().ws)) {
      this.spacing(rule());
      query.limit = this.parseLimit();
    }
    return query;
  }

  private parseSortBy(): SortKey[] {
    this.expect('sort', 'any');
    this.expect('by', 'required');
    const keys = [this.parseSortField('required')];
    while (this.peek().kind === 'comma') {
      this.next();
      keys.push(this.parseSortField('any'));
    }
    return keys;
  }

  private parseSortField(rule: WsRule): SortKey {
    const field = String(this.expect('ident', rule).value);
    const dir = this.peek();
    if ((dir.kind === 'asc' || dir.kind === 'desc') && dir.ws) {
      this.next();
      return { field, direction: dir.kind };
    }
    return { field, direction: 'asc' };
  }

  private parseSkip(): number {
    this.expect('skip', 'any');
    const token = this.expect('number', 'required');
    if (!token.int) this.defer(`expected integer value for skip, but got ${token.text}`);
    return Number(token.value);
  }

  private parseLimit(): number | 'none' {
    this.expect('limit', 'any');
    const token = this.spacing('required');
    if (token.kind === 'none') {
      this.next();
      return 'none';
    }
    this.expect('number', 'required');
    if (!token.int) this.defer(`expected integer value for limit, but got ${token.text}`);
    return Number(token.value);
  }

  /** Parses one nested part, refusing nesting beyond MAX_FILTER_DEPTH before recursing. */
  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_FILTER_DEPTH) {
      throw new QueryError(`filter nested more than ${MAX_FILTER_DEPTH} levels deep (the cap is ${MAX_FILTER_DEPTH})`);
    }
    const result = parse();
    this.depth--;
    return result;
  }

  private defer(message: string): void {
    this.deferred ??= new QueryError(message);
  }

  /**
   * Precedence climbing: `and` binds tighter than `or`. A `not` applies to the whole
   * expression that follows it (upstream parses its operand at the lowest precedence).
   */
  private parseBool(minPrec: number): Expr {
    let left = this.parsePrimary();
    for (;;) {
      const op = this.peek();
      const prec = op.kind === 'and' ? PREC_AND : op.kind === 'or' ? PREC_OR : 0;
      if (prec === 0 || prec < minPrec || !op.ws) return left;
      this.next();
      this.spacing('required');
      const right = this.parseBool(prec + 1);
      left = join(op.kind as 'and' | 'or', left, right);
    }
  }

  private parsePrimary(): Expr {
    const token = this.peek();
    switch (token.kind) {
      case 'lparen': {
        this.next();
        const inner = this.nested(() => this.parseBool(PREC_OR));
        this.expect('rparen', 'any');
        return inner;
      }
      case 'not':
        this.next();
        this.spacing('required');
        return { kind: 'not', arg: this.nested(() => this.parseBool(PREC_OR)) };
      case 'bool':
        this.next();
        return { kind: 'const', value: token.value === true };
      case 'isEmpty':
        return { kind: 'isEmpty', set: this.parseSetCall() };
      case 'ident':
        this.next();
        if (!OPERATORS.has(this.peek().kind)) return { kind: 'boolSymbol', symbol: String(token.value) };
        return this.parseOperation({ kind: 'symbol', symbol: String(token.value) });
      case 'anyOf':
      case 'allOf':
        return this.parseOperation(this.parseElementFunction(token.kind));
      case 'count':
        return this.parseOperation({ kind: 'count', set: this.parseSetCall() });
      default:
        return this.fail(token);
    }
  }

  /** `anyOf(sym)` / `allOf(sym)`. */
  private parseElementFunction(kind: 'anyOf' | 'allOf'): Operand {
    this.next();
    this.expect('lparen', 'none');
    const symbol = String(this.expect('ident', 'any').value);
    this.expect('rparen', 'any');
    return { kind, symbol };
  }

  /** `count(` / `isEmpty(` setExpr `)`, the function keyword not yet consumed. */
  private parseSetCall(): SetExpr {
    this.next();
    this.expect('lparen', 'none');
    const set = this.parseSetExpr();
    this.expect('rparen', 'any');
    return set;
  }

  /** A set symbol, or `from <symbol> where <query>`. */
  private parseSetExpr(): SetExpr {
    const token = this.spacing('any');
    if (token.kind === 'ident') {
      this.next();
      return { kind: 'set', symbol: String(token.value) };
    }
    if (token.kind !== 'from') this.fail(token);
    this.next();
    const symbol = String(this.expect('ident', 'required').value);
    this.expect('where', 'required');
    this.spacing('required');
    return { kind: 'subquery', symbol, query: this.nested(() => this.parseQuery()) };
  }

  private parseOperation(lhs: Operand): Expr {
    const op = this.peek();
    switch (op.kind) {
      case 'cmp':
        this.next();
        return { kind: 'compare', lhs, op: op.text as CompareOp, rhs: this.parseComparand(op.text) };
      case 'contains':
      case 'icontains': {
        this.next();
        const rhs = this.literal(op.kind === 'contains' ? ['string', 'number'] : ['string'], 'required');
        const name = (op.negated ? 'not ' : '') + op.kind;
        return { kind: 'compare', lhs, op: name as CompareOp, rhs };
      }
      case 'in':
        return this.parseIn(lhs, op);
      case 'between':
        return this.parseBetween(lhs, op);
      default:
        return this.fail(op);
    }
  }

  private parseComparand(op: string): Literal {
    return this.literal(op === '=' || op === '!=' ? EQUALITY_OPERANDS : ORDER_OPERANDS, 'any');
  }

  private parseIn(lhs: Operand, op: Token): Expr {
    this.spacing('required');
    this.next();
    this.expect('lbracket', 'required');
    const first = this.literal(ORDER_OPERANDS, 'any');
    const values = [first];
    while (this.spacing('any').kind === 'comma') {
      this.next();
      values.push(this.literal([first.type as TokenKind], 'any'));
    }
    this.expect('rbracket', 'any');
    return { kind: 'in', lhs, negated: Boolean(op.negated), values: promoteNumbers(values) };
  }

  private parseBetween(lhs: Operand, op: Token): Expr {
    this.spacing('required');
    this.next();
    const lower = this.literal(['number', 'datetime'], 'required');
    this.expect('and', 'required');
    const upper = this.literal([lower.type as TokenKind], 'required');
    return { kind: 'between', lhs, negated: Boolean(op.negated), lower, upper };
  }

  /** Consumes one literal of the allowed token kinds. */
  private literal(kinds: TokenKind[], rule: WsRule): Literal {
    const token = this.spacing(rule);
    if (!kinds.includes(token.kind)) this.fail(token);
    this.next();
    switch (token.kind) {
      case 'string':
        return { type: 'string', value: String(token.value) };
      case 'number':
        return { type: 'number', value: Number(token.value), int: Boolean(token.int) };
      case 'bool':
        return { type: 'bool', value: token.value === true };
      case 'datetime':
        return this.datetime(String(token.value));
      default:
        return { type: 'null' };
    }
  }

  private datetime(text: string): Literal {
    const value = parseRfc3339(text);
    if (value === undefined) this.defer(`invalid datetime '${text}'`);
    return { type: 'datetime', value: value ?? 0, text };
  }
}

/** Builds an n-ary and/or, flattening same-kind children. */
function join(kind: 'and' | 'or', left: Expr, right: Expr): Expr {
  const args = [left, right].flatMap((e) => (e.kind === kind ? e.args : [e]));
  return { kind, args };
}

/** A number array with any float becomes a float array. */
function promoteNumbers(values: Literal[]): Literal[] {
  if (!values.some((v) => v.type === 'number' && !v.int)) return values;
  return values.map((v) => (v.type === 'number' ? { ...v, int: false } : v));
}
