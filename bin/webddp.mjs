#!/usr/bin/env node
// The `webddp` command. Runs the bundled CLI (dist-cli/webddp.mjs); in a checkout, building it
// first with Vite when it is missing or older than the sources (`npm run webddp` and the installed
// bin both come through here).
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

// An installed package has no sources: its bundle is what `npm pack` built (prepack), and no build
// tool is needed to run it. A checkout rebuilds the bundle when the sources are newer.
const checkout = existsSync(join(root, 'src')) && existsSync(join(root, 'vite.cli.config.ts'));
const stale =
  checkout &&
  (!existsSync(bundle) ||
    Math.max(
      newest(join(root, 'src')),
      newest(join(root, 'shaders')),
      newest(join(root, 'workers')),
      statSync(join(root, 'vite.cli.config.ts')).mtimeMs,
    ) > statSync(bundle).mtimeMs);
if (stale) {
  process.stderr.write('webddp: building the CLI bundle (dist-cli) ...\n');
  const { build } = await import('vite');
  await build({ root, configFile: join(root, 'vite.cli.config.ts'), logLevel: 'warn' });
}
if (!existsSync(bundle)) {
  process.stderr.write(`webddp: ${bundle} is missing: reinstall the package (or npm run build:cli in a checkout)\n`);
  process.exit(1);
}
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2));
