// docs/architecture.md draws the layering in a ```layering block; it must be the code's
// (`node scripts/layering.mjs --write` regenerates it).
import { describe, expect, it } from 'vitest';
import { arrows, documented, parse } from '../../scripts/layering.mjs';

// Parsing every source file takes a few seconds on a loaded machine.
const PARSE = 60_000;

const list = (pairs: Map<string, Map<string, number>>) =>
  [...pairs].flatMap(([a, targets]) => [...targets.keys()].map((b) => `${a} -> ${b}`)).sort();

describe('docs/architecture.md layering', () => {
  it(
    'draws every folder-to-folder arrow the code has, and none it does not',
    () => {
      const code = list(arrows());
      const drawn = list(parse(documented()));
      expect(code.length).toBeGreaterThan(0);
      expect({
        missing: code.filter((a) => !drawn.includes(a)),
        extra: drawn.filter((a) => !code.includes(a)),
      }).toEqual({
        missing: [],
        extra: [],
      });
    },
    PARSE,
  );
});
