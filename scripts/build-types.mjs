#!/usr/bin/env node
// The library's TypeScript declarations (dist-cli/types, `types` of package.json): tsc emits them
// from src/api/index.ts (tsconfig.lib.json); their relative imports are rewritten from .ts to .js so
// any consumer's module resolution finds the .d.ts next to them.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist-cli', 'types');
rmSync(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.lib.json')], { stdio: 'inherit', cwd: root });

function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) rewrite(p);
    else if (name.endsWith('.d.ts'))
      writeFileSync(
        p,
        readFileSync(p, 'utf8').replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2'),
      );
  }
}
rewrite(out);
