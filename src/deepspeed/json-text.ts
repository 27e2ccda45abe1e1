// A ds_config.json's text to a value, as DeepSpeed reads it (hjson, with
// dict_raise_error_on_duplicate_keys): comments (// and /* */) are allowed, a key given twice in
// one object is refused (JSON.parse would silently keep the last one), and a syntax error names
// its line and column. jsonc-parser (VS Code's) does the scanning; it does not take hjson's
// unquoted strings or # comments, which are refused as syntax errors.
import { parse, printParseErrorCode, visit, type JSONPath, type ParseError } from 'jsonc-parser';

const pathText = (path: JSONPath) =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .slice(1);

export function parseConfigText(text: string): { ok: true; value: unknown } | { ok: false; issue: string } {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  const lineCol = (offset: number) => {
    const before = text.slice(0, offset).split('\n');
    return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  };
  const first = errors[0];
  if (first) return { ok: false, issue: `${printParseErrorCode(first.error)} at ${lineCol(first.offset)}` };
  // Keys seen per open object, innermost last.
  const open: Set<string>[] = [];
  const duplicates: string[] = [];
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (key, _offset, _length, _line, _col, pathSupplier) => {
      const seen = open.at(-1);
      if (seen?.has(key)) duplicates.push(pathText([...pathSupplier(), key]));
      seen?.add(key);
    },
  });
  if (duplicates.length > 0)
    return { ok: false, issue: `Duplicate keys in DeepSpeed config: ${duplicates.join(', ')}` };
  return { ok: true, value };
}
