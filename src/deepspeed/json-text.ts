// A ds_config.json's text to a value, as DeepSpeed reads it (hjson, with
// dict_raise_error_on_duplicate_keys): comments (// and /* */) are allowed, a key given twice in
// one object is refused (JSON.parse would silently keep the last one), and a syntax error names
// its line and column. The reading is src/input/json.ts's (objects without prototypes,
// `__proto__`/`constructor`/`prototype` refused, a nesting limit); it does not take hjson's
// unquoted strings or # comments, which are refused as syntax errors.
import { parseJson, type JsonResult } from '../input/json.ts';

export function parseConfigText(text: string): JsonResult {
  return parseJson(text, {
    comments: true,
    duplicates: (paths) => `Duplicate keys in DeepSpeed config: ${paths.join(', ')}`,
  });
}
