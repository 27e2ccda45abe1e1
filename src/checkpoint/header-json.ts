// A strict JSON parser for safetensors headers, with the rules of the reference reader (Rust
// serde_json as used by safetensors 0.7) where JSON.parse is more lenient or loses information:
//  * object members are kept in order with duplicates (JSON.parse keeps the last one silently);
//  * integers are told apart from floats (`32.0`, `3e1` and `-0` are floats) and read exactly as
//    bigint, so a shape dimension past 2^53 is not rounded;
//  * whitespace is only space, tab, CR and LF (a UTF-8 BOM or a form feed is an error);
//  * an escaped lone surrogate (`\ud800`) is an error; a number that overflows f64 is an error;
//  * nesting deeper than 127 arrays/objects is an error (serde_json's recursion limit).

export type JsonValue =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'str'; readonly v: string }
  /** A non-negative integer written without fraction or exponent that fits in a u64. */
  | { readonly t: 'int'; readonly v: bigint }
  /** Every other number: negative, fractional, with an exponent, or past u64 (serde_json: a float). */
  | { readonly t: 'float'; readonly v: number; readonly text: string }
  | { readonly t: 'arr'; readonly v: readonly JsonValue[] }
  | { readonly t: 'obj'; readonly v: readonly (readonly [string, JsonValue])[] };

export class HeaderJsonError extends Error {
  constructor(
    detail: string,
    readonly at: number,
  ) {
    super(`${detail} at character ${at}`);
    this.name = 'HeaderJsonError';
  }
}

const MAX_DEPTH = 127;
const U64_MAX = (1n << 64n) - 1n;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class Parser {
  at = 0;
  constructor(private readonly s: string) {}

  fail(detail: string, at = this.at): never {
    throw new HeaderJsonError(detail, at);
  }

  ws(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.at);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.at++;
      else return;
    }
  }

  value(depth: number): JsonValue {
    this.ws();
    const c = this.s[this.at];
    if (c === undefined) this.fail('unexpected end of the header');
    if (c === '{' || c === '[') {
      if (depth >= MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
      return c === '{' ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === '"') return { t: 'str', v: this.string() };
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
      ['null', { t: 'null' }],
    ] as const) {
      if (this.s.startsWith(word, this.at)) {
        this.at += word.length;
        return v;
      }
    }
    return this.fail(`unexpected character ${JSON.stringify(c)}`);
  }

  object(depth: number): JsonValue {
    this.at++; // {
    const members: [string, JsonValue][] = [];
    this.ws();
    if (this.s[this.at] === '}') {
      this.at++;
      return { t: 'obj', v: members };
    }
    for (;;) {
      this.ws();
      if (this.s[this.at] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.ws();
      if (this.s[this.at] !== ':') this.fail("expected ':'");
      this.at++;
      members.push([key, this.value(depth)]);
      this.ws();
      const c = this.s[this.at++];
      if (c === '}') return { t: 'obj', v: members };
      if (c !== ',') this.fail("expected ',' or '}'", this.at - 1);
    }
  }

  array(depth: number): JsonValue {
    this.at++; // [
    const items: JsonValue[] = [];
    this.ws();
    if (this.s[this.at] === ']') {
      this.at++;
      return { t: 'arr', v: items };
    }
    for (;;) {
      items.push(this.value(depth));
      this.ws();
      const c = this.s[this.at++];
      if (c === ']') return { t: 'arr', v: items };
      if (c !== ',') this.fail("expected ',' or ']'", this.at - 1);
    }
  }

  number(): JsonValue {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.s);
    if (!m) return this.fail('invalid number');
    const text = m[0];
    const next = this.s[this.at + text.length];
    if (next !== undefined && next >= '0' && next <= '9') this.fail('invalid number (leading zero)');
    this.at += text.length;
    if (!text.startsWith('-') && m[1] === undefined && m[2] === undefined) {
      const v = BigInt(text);
      if (v <= U64_MAX) return { t: 'int', v };
    }
    const v = Number(text);
    if (!Number.isFinite(v)) this.fail(`number ${text.slice(0, 40)} out of range`, this.at - text.length);
    return { t: 'float', v, text };
  }

  hex4(): number {
    const h = this.s.slice(this.at, this.at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('invalid \\u escape');
    this.at += 4;
    return parseInt(h, 16);
  }

  string(): string {
    this.at++; // "
    let out = '';
    let from = this.at;
    for (;;) {
      const c = this.s.charCodeAt(this.at);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) {
        out += this.s.slice(from, this.at++);
        return out;
      }
      if (c < 0x20) this.fail('control character in a string');
      if (c !== 0x5c) {
        this.at++;
        continue;
      }
      out += this.s.slice(from, this.at);
      const e = this.s[this.at + 1] ?? '';
      this.at += 2;
      if (e === 'u') out += this.unicodeEscape();
      else if (e in ESCAPES) out += ESCAPES[e];
      else this.fail(`invalid escape \\${e}`, this.at - 2);
      from = this.at;
    }
  }

  unicodeEscape(): string {
    const start = this.at - 2;
    const u = this.hex4();
    if (u >= 0xdc00 && u <= 0xdfff) this.fail('lone surrogate in a \\u escape', start);
    if (u < 0xd800 || u > 0xdbff) return String.fromCharCode(u);
    if (this.s.slice(this.at, this.at + 2) !== '\\u') this.fail('lone surrogate in a \\u escape', start);
    this.at += 2;
    const low = this.hex4();
    if (low < 0xdc00 || low > 0xdfff) this.fail('lone surrogate in a \\u escape', start);
    return String.fromCharCode(u, low);
  }
}

/** Parses one JSON value that fills `text` (surrounding JSON whitespace allowed). */
export function parseHeaderJson(text: string): JsonValue {
  const p = new Parser(text);
  const v = p.value(0);
  p.ws();
  if (p.at !== text.length) p.fail('trailing characters after the JSON value');
  return v;
}

/** How a JSON value is named in messages: `float 32.0`, `string "x"`, `array`... */
export function describeJson(v: JsonValue): string {
  switch (v.t) {
    case 'null':
      return 'null';
    case 'bool':
      return `boolean ${v.v}`;
    case 'str':
      return `string ${JSON.stringify(v.v.slice(0, 40))}`;
    case 'int':
      return `integer ${v.v}`;
    case 'float':
      return `number ${v.text.slice(0, 40)}`;
    case 'arr':
      return `array of ${v.v.length}`;
    case 'obj':
      return 'object';
  }
}
