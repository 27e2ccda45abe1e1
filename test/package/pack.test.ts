// The package as a user gets it: `npm pack` (prepack builds the pages, the CLI bundle and the type
// declarations) in a copy of this checkout, the tarball installed into an empty folder from npm's
// local cache (--offline: no registry), then there `npx webddp --version`, a real `npx webddp
// check` subset on this machine's WebGPU, `import('webddp')`, and a TypeScript consumer compiled
// against the shipped declarations. Nothing of the checkout is visible to the installed copy.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const repo = resolve('.');
const SKIP = new Set(['node_modules', '.git', 'dist', 'dist-e2e', 'dist-cli', 'coverage', 'test-results', '.webddp']);
/** The empty folder's files: a package.json, a user's script and a TypeScript user of the declarations. */
const CONSUMER: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'webddp-consumer', version: '1.0.0', private: true, type: 'module' }),
  'use.mjs': `import * as webddp from 'webddp';
const exports = Object.keys(webddp).sort();
const sampler = webddp.sampler({ n: 10, replicas: 2, rank: 1, seed: 0 });
console.log(JSON.stringify({ version: webddp.version, exports, sampler, params: webddp.init(0).length }));
`,
  'use.ts': `import { check, init, sampler, type CheckReport, type TrainOptions } from 'webddp';
const indices: number[] = sampler({ n: 10, replicas: 2, rank: 1, seed: 0 });
const params: Float32Array = init(0, 1);
const options: TrainOptions = { config: { workers: 2, mode: 'ddp', epochs: 1 }, data: 'synthetic' };
export async function quick(): Promise<boolean> {
  const r: CheckReport = await check({ groups: ['kernels'], kernels: ['scale'] });
  return r.ok && indices.length + params.length > 0 && options.data === 'synthetic';
}
`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'nodenext',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
    files: ['use.ts'],
  }),
};

const run = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_UPDATE_NOTIFIER: '1' },
  });

const work = mkdtempSync(join(tmpdir(), 'webddp-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('npm pack, install into an empty folder offline, then npx webddp check and import("webddp") there', () => {
  const copy = join(work, 'src');
  for (const e of readdirSync(repo))
    if (!SKIP.has(e) && !e.startsWith('.gpu')) cpSync(join(repo, e), join(copy, e), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
  run('npm', ['pack', '--pack-destination', work, '--silent'], copy);
  const version = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version;
  const tarball = join(work, `webddp-${version}.tgz`);

  const app = join(work, 'app');
  mkdirSync(app);
  for (const [name, text] of Object.entries(CONSUMER)) writeFileSync(join(app, name), text);
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', tarball], app);

  expect(run('npx', ['webddp', '--version'], app).trim()).toBe(`webddp ${version}`);
  const check = JSON.parse(
    run('npx', ['webddp', 'check', '--only', 'kernels', '--kernels', 'scale', '--json'], app),
  ) as {
    ok: boolean;
    counts: { pass: number; fail: number };
  };
  expect(check.ok).toBe(true);
  expect(check.counts.pass).toBeGreaterThan(0);
  expect(check.counts.fail).toBe(0);

  const lib = JSON.parse(run('node', ['use.mjs'], app)) as {
    version: string;
    exports: string[];
    sampler: number[];
    params: number;
  };
  expect(lib.version).toBe(version);
  expect(lib.exports).toEqual(expect.arrayContaining(['check', 'train', 'parity', 'sampler', 'init', 'importDataset']));
  expect(lib.sampler).toEqual([1, 5, 9, 8, 2]); // torch DistributedSampler(range(10), 2, rank=1, seed=0), epoch 0
  expect(lib.params).toBe(545098);

  // The shipped declarations type a consumer (typescript from this checkout; the app has none).
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  run(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
  writeFileSync(
    join(app, 'bad.ts'),
    "import { sampler } from 'webddp';\nexport const n: string = sampler({ n: 1, replicas: 1, rank: 0 });\n",
  );
  writeFileSync(join(app, 'tsconfig.bad.json'), JSON.stringify({ extends: './tsconfig.json', files: ['bad.ts'] }));
  const bad = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.bad.json'], {
    cwd: app,
    encoding: 'utf8',
  });
  expect(bad.status).not.toBe(0);
  expect(bad.stdout).toMatch(/bad\.ts\(2,14\): error TS2322: Type 'number\[\]' is not assignable to type 'string'/);
});
