#!/usr/bin/env node
// The `webddp` command. Runs the bundled CLI (dist-cli/webddp.mjs), building it first with Vite
// when it is missing or older than the sources (a checkout has no build; `npm run webddp` and the
// installed bin both come through here).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist-cli', 'webddp.mjs');

function newest(dir) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const stale =
  !existsSync(bundle) ||
  Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'shaders')),
    newest(join(root, 'workers')),
    statSync(join(root, 'vite.cli.config.ts')).mtimeMs,
  ) > statSync(bundle).mtimeMs;
if (stale && existsSync(join(root, 'src'))) {
  process.stderr.write('webddp: building the CLI bundle (dist-cli) ...\n');
  const { build } = await import('vite');
  await build({ root, configFile: join(root, 'vite.cli.config.ts'), logLevel: 'warn' });
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
