// The module graph as the code has it (scripts/import-graph.mjs reads every import with the
// TypeScript parser): what the main thread of a run loads, and who may use the CPU oracle.
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, loadedBy, root } from '../../scripts/import-graph.mjs';

// Parsing every source file takes a few seconds on a loaded machine.
const PARSE = 60_000;

/** The main thread of a run: the coordinator, the elastic run around it, and the teaching page. */
const MAIN_THREAD = ['src/runtime/coordinator.ts', 'src/runtime/elastic.ts', 'src/ui/main.ts'];

const gpuCode = (file: string) => file.startsWith(`${root}/src/gpu/`) || file.endsWith('.wgsl');

describe('the module graph', () => {
  it(
    "the coordinator's and the page's thread load no GPU code and no shader (runners load lazily)",
    () => {
      for (const entry of MAIN_THREAD) {
        const chains = [...loadedBy([entry])].filter(([f]) => gpuCode(f)).map(([, chain]) => chain.join(' -> '));
        expect(chains, entry).toEqual([]);
      }
    },
    PARSE,
  );

  it(
    'the check above sees GPU code where it is: a rank worker loads it and the shaders, a mode runner the GPU',
    () => {
      const worker = [...loadedBy(['workers/node-rank.worker.ts']).keys()];
      expect(worker.some((f) => f.startsWith(`${root}/src/gpu/`))).toBe(true);
      expect(worker.some((f) => f.endsWith('.wgsl'))).toBe(true);
      const runner = [...loadedBy(['src/parallel/ddp/runner.ts']).keys()];
      expect(runner.some((f) => f.startsWith(`${root}/src/gpu/`))).toBe(true);
    },
    PARSE,
  );

  it(
    'production code does not import the CPU oracle (src/reference): only check, parity and the oracle do',
    () => {
      const oracleUsers = ['src/reference/', 'src/check/', 'src/parity/'];
      const bad: string[] = [];
      for (const [file, imports] of importGraph(['src', 'workers', 'bench'])) {
        const from = relative(root, file);
        if (oracleUsers.some((u) => from.startsWith(u))) continue;
        for (const { target } of imports)
          if (relative(root, target).startsWith('src/reference/'))
            bad.push(`${from} imports ${relative(root, target)}`);
      }
      expect(bad).toEqual([]);
    },
    PARSE,
  );
});
