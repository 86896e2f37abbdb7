// ZitiQL tokenizer, modelled on upstream's ANTLR lexer: case-insensitive keywords,
// double-quoted strings, int/float numbers, datetime(...) literals, digit-free identifiers.
// Whitespace is not a token; each token records the whitespace run before it.

import { RFC3339 } from './datetime.js';

/** Token kinds; 'error' is text the lexer could not recognise, always followed by 'eof'. */
export type TokenKind =
  | 'lparen' | 'rparen' | 'lbracket' | 'rbracket' | 'comma'
  | 'cmp' | 'contains' | 'icontains' | 'in' | 'between'
  | 'and' | 'or' | 'not' | 'bool' | 'null' | 'string' | 'number' | 'datetime'
  | 'allOf' | 'anyOf' | 'count' | 'isEmpty'
  | 'asc' | 'desc' | 'sort' | 'by' | 'skip' | 'limit' | 'none' | 'where' | 'from'
  | 'ident' | 'error' | 'eof';

/** Where a token or whitespace run starts: 1-based line, 0-based column (as ANTLR reports). */
export interface Position {
  line: number;
  col: number;
}

/** One token. `value` is the decoded string, number, boolean or datetime source text. */
export interface Token extends Position {
  kind: TokenKind;
  text: string;
  value?: string | number | boolean;
  /** Numbers: written without fraction or exponent and within int64. */
  int?: boolean;
  /** `not contains`, `not icontains`, `not in`, `not between`. */
  negated?: boolean;
  /** The whitespace run immediately before the token, if any. */
  ws?: Position & { ch: string };
}

const KEYWORDS = new Map<string, TokenKind>([
  ['and', 'and'], ['or', 'or'], ['not', 'not'], ['true', 'bool'], ['false', 'bool'], ['null', 'null'],
  ['contains', 'contains'], ['icontains', 'icontains'], ['in', 'in'], ['between', 'between'],
  ['allof', 'allOf'], ['anyof', 'anyOf'], ['count', 'count'], ['isempty', 'isEmpty'],
  ['asc', 'asc'], ['desc', 'desc'], ['sort', 'sort'], ['by', 'by'], ['skip', 'skip'],
  ['limit', 'limit'], ['none', 'none'], ['where', 'where'], ['from', 'from'],
]);

const PUNCT = new Map<string, TokenKind>([
  ['(', 'lparen'], [')', 'rparen'], ['[', 'lbracket'], [']', 'rbracket'], [',', 'comma'],
]);

const IDENT = /[A-Za-z][A-Za-z_]*(?:\.[A-Za-z][A-Za-z_-]*)*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?(?:0|[1-9]\d*))?/y;
const CMP = /!=|<=|>=|=|<|>/y;
const WS = /[ \t\r\n]+/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', f: '\f', n: '\n', r: '\r', t: '\t' };
const INT64_MAX = 9223372036854775807n;

/** Tokenizes a whole filter; stops at the first unrecognisable text (an 'error' token). */
export function tokenize(text: string): Token[] {
  return new Lexer(text).run();
}

class Lexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  private readonly tokens: Token[] = [];

  constructor(private readonly src: string) {}

  run(): Token[] {
    for (;;) {
      const ws = this.skipWhitespace();
      const start = this.here();
      if (this.pos >= this.src.length) {
        this.tokens.push({ kind: 'eof', text: '<EOF>', ...start, ws });
        return this.tokens;
      }
      const token = this.lexOne();
      this.tokens.push({ ...token, ...start, ws });
      if (token.kind === 'error') {
        this.tokens.push({ kind: 'eof', text: '<EOF>', ...this.here() });
        return this.tokens;
      }
    }
  }

  private here(): Position {
    return { line: this.line, col: this.pos - this.lineStart };
  }

  private skipWhitespace(): Token['ws'] {
    const m = this.match(WS);
    if (!m) return undefined;
    const ws = { ...this.here(), ch: m[0] };
    for (const ch of m) {
      this.pos++;
      if (ch === '\n') {
        this.line++;
        this.lineStart = this.pos;
      }
    }
    return ws;
  }

  private match(re: RegExp, at = this.pos): string | undefined {
    re.lastIndex = at;
    return re.exec(this.src)?.[0];
  }

  private take(text: string): string {
    this.pos += text.length;
    return text;
  }

  private lexOne(): Omit<Token, 'line' | 'col'> {
    const ch = this.src[this.pos];
    const punct = PUNCT.get(ch);
    if (punct) return { kind: punct, text: this.take(ch) };
    if (ch === '"') return this.lexString();
    if (ch === "'") return this.lexQuotedIdent();
    const cmp = this.match(CMP);
    if (cmp) return { kind: 'cmp', text: this.take(cmp) };
    const num = this.match(NUMBER);
    if (num) return this.numberToken(this.take(num));
    if (this.match(IDENT)) return this.lexWord();
    // '!' and '-' start a longer token (!=, a number): ANTLR reports the next character too.
    return this.error(ch === '!' || ch === '-' ? this.pos + 1 : this.pos);
  }

  /** Unrecognised text from start through the offending character (ANTLR's report). */
  private error(failAt: number): Omit<Token, 'line' | 'col'> {
    const text = this.src.slice(this.pos, Math.min(failAt + 1, this.src.length));
    this.pos = this.src.length;
    return { kind: 'error', text };
  }

  private lexString(): Omit<Token, 'line' | 'col'> {
    let value = '';
    for (let i = this.pos + 1; i < this.src.length; i++) {
      const c = this.src[i];
      if (c === '"') {
        const text = this.src.slice(this.pos, i + 1);
        this.pos = i + 1;
        return { kind: 'string', text, value };
      }
      if (c === '\\') {
        const esc = ESCAPES[this.src[i + 1]];
        if (esc === undefined) return this.error(i + 1);
        value += esc;
        i++;
      } else if (c.charCodeAt(0) < 0x20) {
        return this.error(i);
      } else {
        value += c;
      }
    }
    return this.error(this.src.length);
  }

  private lexQuotedIdent(): Omit<Token, 'line' | 'col'> {
    const name = this.match(IDENT, this.pos + 1);
    const end = this.pos + 1 + (name?.length ?? 0);
    if (!name || this.src[end] !== "'") return this.error(end);
    const text = this.src.slice(this.pos, end + 1);
    this.pos = end + 1;
    return { kind: 'ident', text, value: name };
  }

  private numberToken(text: string): Omit<Token, 'line' | 'col'> {
    const int = !/[.eE]/.test(text) && BigInt(text) <= INT64_MAX && BigInt(text) >= -INT64_MAX - 1n;
    return { kind: 'number', text, value: Number(text), int };
  }

  private lexWord(): Omit<Token, 'line' | 'col'> {
    const word = this.match(IDENT) as string;
    const lower = word.toLowerCase();
    if (lower === 'datetime' && this.src[this.pos + word.length] === '(') {
      const dt = this.lexDatetime(word.length + 1);
      if (dt) return dt;
    }
    if (lower === 'not') {
      const compound = this.lexNotCompound(word.length);
      if (compound) return compound;
    }
    this.take(word);
    const kind = KEYWORDS.get(lower);
    if (kind === 'bool') return { kind, text: word, value: lower === 'true' };
    return kind ? { kind, text: word } : { kind: 'ident', text: word, value: word };
  }

  /** `datetime(` WS* RFC3339 WS* `)`; undefined (lex as identifier) when it does not match. */
  private lexDatetime(offset: number): Omit<Token, 'line' | 'col'> | undefined {
    let at = this.pos + offset;
    at += this.match(WS, at)?.length ?? 0;
    const body = this.match(RFC3339, at);
    if (!body) return undefined;
    at += body.length;
    at += this.match(WS, at)?.length ?? 0;
    if (this.src[at] !== ')') return undefined;
    const text = this.src.slice(this.pos, at + 1);
    this.advanceLines(text);
    return { kind: 'datetime', text, value: body };
  }

  /** `not` WS+ contains|icontains|between, or `not` + exactly one WS + `in`. */
  private lexNotCompound(offset: number): Omit<Token, 'line' | 'col'> | undefined {
    const ws = this.match(WS, this.pos + offset);
    if (!ws) return undefined;
    const next = this.match(IDENT, this.pos + offset + ws.length)?.toLowerCase();
    const kind = next === undefined ? undefined : KEYWORDS.get(next);
    const fits =
      kind === 'contains' || kind === 'icontains' || kind === 'between' || (kind === 'in' && ws.length === 1);
    if (!fits || next === undefined) return undefined;
    const end = this.pos + offset + ws.length + next.length;
    const text = this.src.slice(this.pos, end);
    this.advanceLines(text);
    return { kind, text, negated: true };
  }

  /** Consumes text that may span lines (the whitespace inside `not\ncontains`). */
  private advanceLines(text: string): void {
    for (const ch of text) {
      this.pos++;
      if (ch === '\n') {
        this.line++;
        this.lineStart = this.pos;
      }
    }
  }
}
