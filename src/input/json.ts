// Every JSON document webddp reads (a DeepSpeed config, a checkpoint's trainer.json, a store's
// manifest, a tuning file, a baseline, a fixture's metadata) is read here, and nowhere with
// JSON.parse: objects come back without a prototype (Object.create(null)), so no key can reach
// Object.prototype or shadow a method; the keys `__proto__`, `constructor` and `prototype` and a key
// given twice in one object are refused by their path; nesting deeper than MAX_JSON_DEPTH is
// refused before any parsing (a recursive parser would otherwise overflow the stack on 100,000
// brackets, naming nothing). Errors name the line and column. jsonc-parser (VS Code's) scans;
// comments are taken only where the caller allows them (a ds_config, as DeepSpeed's hjson does).
import { printParseErrorCode, visit, type JSONPath } from 'jsonc-parser';

/** Keys that name JavaScript's object machinery: refused in every JSON object webddp reads. */
export const FORBIDDEN_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];
/** The deepest nesting of arrays and objects a document may have (webddp's own go 4 deep). */
export const MAX_JSON_DEPTH = 64;

/** The largest JSON file webddp reads (a config, trainer.json, a manifest): refused from its size before reading. */
export const MAX_JSON_BYTES = 1 << 20;

export type JsonResult = { ok: true; value: unknown } | { ok: false; issue: string };

export interface JsonOptions {
  /** Allow // and /* *\/ comments (a DeepSpeed config). */
  readonly comments?: boolean;
  /** The message for keys given twice (default: "duplicate key PATH"). */
  readonly duplicates?: (paths: string[]) => string;
}

const pathText = (path: JSONPath) =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .slice(1);

/** The deepest bracket nesting in `text` outside strings (and comments, where they are allowed). */
function nestingDepth(text: string, comments = false): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote (an unterminated one is the parser's error)
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (comments && c === 0x2f && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (comments && c === 0x2f && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** One JSON value from `text`; see the file comment for what is refused. */
export function parseJson(text: string, o: JsonOptions = {}): JsonResult {
  const depth = nestingDepth(text, o.comments);
  if (depth > MAX_JSON_DEPTH) return { ok: false, issue: `nested ${depth} levels deep (at most ${MAX_JSON_DEPTH})` };
  const lineCol = (line: number, col: number) => `line ${line + 1}, column ${col + 1}`;
  let error: string | undefined;
  const duplicates: string[] = [];
  const forbidden: string[] = [];
  // Containers being built, innermost last; an object's pending key and seen keys beside it.
  const stack: { value: Record<string, unknown> | unknown[]; key?: string; seen?: Set<string> }[] = [];
  let root: unknown;
  let rootSet = false;
  const add = (v: unknown) => {
    const top = stack.at(-1);
    if (!top) {
      root = v;
      rootSet = true;
    } else if (Array.isArray(top.value)) top.value.push(v);
    else if (top.key !== undefined) top.value[top.key] = v;
  };
  visit(
    text,
    {
      onObjectBegin: () => {
        stack.push({ value: Object.create(null) as Record<string, unknown>, seen: new Set() });
      },
      onObjectProperty: (key, _offset, _length, _line, _col, pathSupplier) => {
        const top = stack.at(-1);
        if (!top) return;
        const at = pathText([...pathSupplier(), key]);
        if (FORBIDDEN_KEYS.includes(key)) forbidden.push(at);
        if (top.seen?.has(key)) duplicates.push(at);
        top.seen?.add(key);
        top.key = key;
      },
      onObjectEnd: () => {
        const done = stack.pop();
        if (done) add(done.value);
      },
      onArrayBegin: () => {
        stack.push({ value: [] });
      },
      onArrayEnd: () => {
        const done = stack.pop();
        if (done) add(done.value);
      },
      onLiteralValue: (v: unknown) => add(v),
      onError: (code, _offset, _length, line, col) => {
        error ??= `${printParseErrorCode(code)} at ${lineCol(line, col)}`;
      },
    },
    { disallowComments: !o.comments, allowTrailingComma: false, allowEmptyContent: false },
  );
  if (error) return { ok: false, issue: error };
  if (!rootSet) return { ok: false, issue: 'no JSON value' };
  if (forbidden.length > 0)
    return { ok: false, issue: `key ${forbidden.map((p) => `'${p}'`).join(', ')} is not allowed` };
  if (duplicates.length > 0)
    return { ok: false, issue: o.duplicates ? o.duplicates(duplicates) : `duplicate key ${duplicates.join(', ')}` };
  return { ok: true, value: root };
}

/** Like parseJson, but throws `fail(issue)` (an error naming the file) instead of returning the issue. */
export function readJson(text: string, fail: (issue: string) => Error, o: JsonOptions = {}): unknown {
  const r = parseJson(text, o);
  if (!r.ok) throw fail(r.issue);
  return r.value;
}

/** A plain (prototype-less) JSON object, or undefined. */
export function isJsonObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
