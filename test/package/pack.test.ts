// The package as a user gets it: `npm pack` (prepack builds the pages, the CLI bundle and the type
// declarations) in a copy of this checkout, the tarball installed into an empty folder from npm's
// local cache where it has them (--prefer-offline: npm 11 asks for the full metadata of `webgpu`,
// which an install from the lockfile does not cache, so that comes from the registry), then there
// `npx webddp --version`, -V and --help, a real `npx webddp check` subset on this machine's WebGPU,
// `import('webddp')`, the README's library snippet verbatim, `webddp serve` answering a browser's
// requests, and a TypeScript consumer compiled against the shipped declarations. Nothing of the
// checkout is visible to the installed copy.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const repo = resolve('.');
const SKIP = new Set([
  'node_modules',
  '.git',
  '.lavapipe',
  'dist',
  'dist-e2e',
  'dist-cli',
  'coverage',
  'test-results',
  '.webddp',
]);
/** The empty folder's files: a package.json and a TypeScript user of the declarations. */
const CONSUMER: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'webddp-consumer', version: '1.0.0', private: true, type: 'module' }),
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

// The e2e tier's global setup sets WEBDDP_HARNESS=1 in vitest's process, which would make the
// page build of `npm pack` a test build: the child processes run without it.
const PACK_ENV = Object.fromEntries(
  Object.entries({ ...process.env, NO_UPDATE_NOTIFIER: '1' }).filter(([k]) => k !== 'WEBDDP_HARNESS'),
);
const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = PACK_ENV) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });

/** The README's code block after the marker comment `<!-- name -->`, as a user would copy it. */
function readmeSnippet(name: string): string {
  const text = readFileSync(join(repo, 'README.md'), 'utf8');
  const m = new RegExp(`<!-- ${name} -->\\s*\`\`\`(?:js|sh)\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!m?.[1]) throw new Error(`README.md has no code block after <!-- ${name} -->`);
  return m[1];
}

/** `webddp serve --port 0` from the installed bin: its URL, then stopped with SIGTERM. */
async function serveOnce(app: string, use: (url: string) => Promise<void>): Promise<number | null> {
  const child = spawn(join(app, 'node_modules', '.bin', 'webddp'), ['serve', '--port', '0'], {
    cwd: app,
    env: PACK_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('exit', (code) => reject(new Error(`webddp serve exited ${code}: ${err}`)));
    });
    await use(url);
  } finally {
    child.kill('SIGTERM');
  }
  return exited;
}

const work = mkdtempSync(join(tmpdir(), 'webddp-pack-'));
// (the app's node_modules and the snippet's dataset store: more than the default 10 s on a loaded machine)
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

it('npm pack, install into an empty folder, then npx webddp check and import("webddp") there', async () => {
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
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', tarball], app);

  const installed = join(app, 'node_modules', 'webddp');
  for (const f of ['dist/index.html', 'dist/check.html', 'dist-cli/webddp.mjs', 'fixtures/ddp_world2.safetensors'])
    expect(existsSync(join(installed, f)), f).toBe(true);
  expect(existsSync(join(installed, 'src'))).toBe(false);
  expect(existsSync(join(installed, 'LICENSE'))).toBe(true);
  const shipped = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? shipped(join(dir, e.name)) : [join(dir, e.name)],
    );
  expect(shipped(installed).filter((f) => f.endsWith('.map'))).toEqual([]); // no source maps
  // what dist-cli imports at run time, and nothing else (the rest is bundled)
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, object>;
  expect(Object.keys(manifest.dependencies ?? {})).toEqual(['webgpu']);
  expect(run('npx', ['webddp', '--version'], app).trim()).toBe(`webddp ${version}`);
  expect(run('npx', ['webddp', '-V'], app).trim()).toBe(`webddp ${version}`);
  expect(run('npx', ['webddp', 'train', '-h'], app)).toMatch(/--momentum <X>\s+SGD momentum \(default: 0\.9\)/);
  const check = JSON.parse(
    run('npx', ['webddp', 'check', '--only', 'kernels', '--kernels', 'scale', '--json'], app),
  ) as {
    ok: boolean;
    counts: { pass: number; fail: number };
  };
  expect(check.ok).toBe(true);
  expect(check.counts.pass).toBeGreaterThan(0);
  expect(check.counts.fail).toBe(0);

  const use = `import('webddp').then((w) => console.log(JSON.stringify({ version: w.version, exports: Object.keys(w),
    sampler: w.sampler({ n: 10, replicas: 2, rank: 1, seed: 0 }), params: w.init(0).length })))`;
  const lib = JSON.parse(run('node', ['-e', use], app)) as {
    version: string;
    exports: string[];
    sampler: number[];
    params: number;
  };
  expect(lib.version).toBe(version);
  expect(lib.exports).toEqual(expect.arrayContaining(['check', 'train', 'parity', 'sampler', 'init', 'importDataset']));
  expect(lib.sampler).toEqual([1, 5, 9, 8, 2]); // torch 2.11's DistributedSampler(range(10), 2, rank=1, seed=0), epoch 0 (test/fixtures/sampler.json)
  expect(lib.params).toBe(545098);

  // The README's library snippet, verbatim, as a user's quickstart.mjs (its store in a temp folder).
  writeFileSync(join(app, 'quickstart.mjs'), readmeSnippet('library snippet'));
  // (the 'registers' convolution kernels compile fastest on SwiftShader, as in the GPU tier)
  const tuning = '{"convForward":"registers","convInput":"registers","convWeight":"registers"}';
  const snippet = run('node', ['quickstart.mjs'], app, {
    ...PACK_ENV,
    WEBDDP_HOME: join(work, 'home'),
    WEBDDP_TUNING: tuning,
  });
  expect(snippet).toContain('[ 1, 5, 9, 8, 2 ]');
  expect(snippet).toMatch(/^check true/m);
  expect(snippet).toMatch(/^parity true 43/m);
  expect(snippet).toMatch(/^trained 545098 parameters/m);

  // `webddp serve`: the teaching page and its scripts, with the right types and isolation headers.
  const code = await serveOnce(app, async (url) => {
    expect(url).toMatch(/^http:\/\/localhost:\d+\/$/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    const html = await page.text();
    const script = /<script[^>]+src="\.\/([^"]+\.js)"/.exec(html)?.[1];
    expect(script, html.slice(0, 500)).toBeDefined();
    const js = await fetch(new URL(script ?? '', url));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(new URL('no-such-file', url))).status).toBe(404);
  });
  expect(code).toBe(0);

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
