// Mechanical WGSL rewrites shared by the fp16 storage forms of a kernel (half-params.ts,
// half-acts.ts): every indexing `ident[expr]` of one array turned into a call `fn(expr)`; and where
// a function's text sits in a source (half-acts.ts, shader-sources.ts).

/**
 * `code` with every `ident[...]` (ident not the tail of a longer name) replaced by `fn(...)`, the
 * index expression kept whole (brackets inside it balanced). Throws, naming `kernel`, on an
 * unbalanced bracket.
 */
export function replaceIndexing(code: string, ident: string, fn: string, kernel: string): string {
  const find = (from: number) => {
    for (let at = code.indexOf(`${ident}[`, from); at >= 0; at = code.indexOf(`${ident}[`, at + 1))
      if (at === 0 || !/[A-Za-z0-9_]/.test(code[at - 1] ?? '')) return at;
    return -1;
  };
  let at = find(0);
  while (at >= 0) {
    let depth = 0;
    let end = at + ident.length;
    for (; end < code.length; end++) {
      const c = code[end];
      if (c === '[') depth++;
      else if (c === ']' && --depth === 0) break;
    }
    if (end >= code.length) throw new Error(`kernel ${kernel}: unbalanced '${ident}[' at offset ${at}`);
    code = `${code.slice(0, at)}${fn}(${code.slice(at + ident.length + 1, end)})${code.slice(end + 1)}`;
    at = find(at);
  }
  return code;
}

/** [start, end) of `fn <fnName>(...) { ... }` in `code`, or null. */
export function functionSpan(code: string, fnName: string): [number, number] | null {
  const m = new RegExp(`\\bfn ${fnName}\\s*\\(`).exec(code);
  if (!m) return null;
  const open = code.indexOf('{', m.index);
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '{') depth++;
    else if (code[i] === '}' && --depth === 0) return [m.index, i + 1];
  }
  return null;
}
