// `webddp check` as a regression test must fail when something regressed: a deliberately broken
// variant of the kernel this adapter's tuning selects (conv2d_forward_wide on SwiftShader,
// conv2d_forward_tiled on a GPU: ReLU clamping at 0.001 instead of 0) fails exactly its ReLU cases;
// a throughput baseline the machine cannot meet fails the bench; the JUnit file is valid XML whose
// counts are the report's; a check that checks nothing fails; the browser runtime runs. Tiny runs: a
// few kernels, --quick bench. And `webddp devices` lists what Dawn sees; `--version` prints the version.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeBaseline, type Baseline } from '../../src/check/baseline.ts';
import { benchRowName, benchSize } from '../../src/check/bench.ts';
import type { CheckReport, CheckRow } from '../../src/check/result.ts';
import { KEY_LIMITS, type AdapterReport } from '../../src/gpu/adapters.ts';
import { webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-check-'));
const report = (out: string) => JSON.parse(out) as CheckReport;

let probed: CheckReport | undefined;
/** A one-kernel run: which adapter this machine gives the check. */
async function probe(): Promise<CheckReport> {
  probed ??= report((await webddp('check', '--only', 'kernels', '--kernels', 'clip_coef', '--json')).out);
  return probed;
}

/** The conv forward variant the tuning of this test's adapter selects, and a copy with its ReLU broken. */
async function brokenVariant(): Promise<{ kernel: string; shaders: string }> {
  const kernel = (await probe()).device.adapter.fallback ? 'conv2d_forward_wide' : 'conv2d_forward_tiled';
  const src = readFileSync(`shaders/${kernel}.wgsl`, 'utf8');
  const broken = src.replace(/max\((\w+), vec4f\(0\.0\)\)/g, 'max($1, vec4f(0.001))');
  expect(broken).not.toBe(src);
  const shaders = join(dir, 'broken');
  mkdirSync(shaders, { recursive: true });
  writeFileSync(join(shaders, `${kernel}.wgsl`), broken);
  return { kernel, shaders };
}

describe('webddp check fails on regressions', () => {
  it('a broken variant of the selected conv kernel fails its ReLU cases, and the JUnit file says so', async () => {
    const { kernel, shaders } = await brokenVariant();
    const junit = join(dir, 'broken.xml');
    const bad = await webddp(
      'check',
      '--only',
      'kernels',
      '--kernels',
      kernel,
      '--shaders',
      shaders,
      '--json',
      '--junit',
      junit,
    );
    expect(bad.code, bad.err).toBe(1);
    const r = report(bad.out);
    expect(r.ok).toBe(false);
    const failed = r.rows.filter((x) => x.status === 'fail');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((x) => x.name.includes('relu=true') && /out of tol|mismatch|max abs/.test(x.detail))).toBe(
      true,
    );
    expect(r.rows.filter((x) => x.name.includes('relu=false')).every((x) => x.status === 'pass')).toBe(true);

    // The JUnit XML, read by a real XML parser (Python's ElementTree), holds one testcase per row.
    const counts = execFileSync(
      'python3',
      [
        '-c',
        `import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall('.//testcase')
print(root.get('tests'), root.get('failures'), root.get('skipped'), len(cases), sum(1 for c in cases if c.find('failure') is not None))`,
        junit,
      ],
      { encoding: 'utf8' },
    )
      .trim()
      .split(' ')
      .map(Number);
    expect(counts).toEqual([r.rows.length, failed.length, r.counts.skip, r.rows.length, failed.length]);

    const good = await webddp('check', '--only', 'kernels', '--kernels', kernel, '--json');
    expect(good.code, good.err).toBe(0);
    expect(report(good.out).counts).toEqual({ pass: r.rows.length, fail: 0, skip: 0 });
  });

  it('a throughput baseline faster than this machine fails (and --save-baseline records the run)', async () => {
    const { adapter } = (await probe()).device;
    // What this adapter's --quick bench measures, each row at a billion images/s.
    const names = benchSize(adapter.fallback, true).batches.map(benchRowName);
    const rows = names.map((name): CheckRow => ({
      group: 'bench',
      name,
      status: 'pass',
      ms: 0,
      detail: '',
      imagesPerSec: 1e9,
    }));
    const fast = join(dir, 'fast.json');
    writeFileSync(fast, JSON.stringify(makeBaseline('test', adapter, rows)));
    const saved = join(dir, 'saved.json');
    const r = await webddp(
      'check',
      '--only',
      'bench',
      '--quick',
      '--baseline',
      fast,
      '--save-baseline',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(1);
    const bench = report(r.out).rows;
    expect(bench.map((x) => [x.name, x.status])).toEqual(names.map((n) => [n, 'fail']));
    expect(bench[0]?.detail).toMatch(/baseline 1000000000\.0 images\/s \(-100\.0%, limit -10\.0%\)/);
    const base = JSON.parse(readFileSync(saved, 'utf8')) as Baseline;
    expect(Object.keys(base.imagesPerSec)).toEqual(names);
    for (const n of names) expect(base.imagesPerSec[n]).toBe(bench.find((x) => x.name === n)?.imagesPerSec);
    expect(base.adapter.description).toBe(adapter.description);
  });

  it('runs in headless Chromium too (its WebGPU, the pages built from this checkout)', async () => {
    const r = await webddp(
      'check',
      '--runtime',
      'chromium',
      '--only',
      'kernels',
      '--kernels',
      'clip_coef,fill',
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    const rep = report(r.out);
    expect(rep.runtime).toBe('chromium');
    expect(rep.counts.fail).toBe(0);
    // clip_coef's own case and its run = 0 case (a step the fp16 loss scaler skips), then fill's
    expect(rep.rows.map((x) => x.name.split(':')[0])).toEqual(['clip_coef', 'clip_coef', 'fill']);
    expect(rep.rows[1]?.name).toContain('run = 0');
  });

  it('equivalence: every mode on 2 ranks ends where one worker at the whole batch ends, in the table and JUnit', async () => {
    const junit = join(dir, 'equivalence.xml');
    const r = await webddp('check', '--only', 'equivalence', '--quick', '--json', '--junit', junit);
    expect(r.code, r.err).toBe(0);
    const rows = report(r.out).rows;
    expect(rows.map((x) => x.name.split(',')[0])).toEqual([
      'reference: 1 worker at batch 8',
      'ddp',
      'zero1',
      'zero2',
      'zero3',
      'dp',
      'balanced-dp',
      'ddp',
    ]);
    expect(rows.every((x) => x.group === 'equivalence' && x.status === 'pass')).toBe(true);
    expect(rows.find((x) => x.name.startsWith('balanced-dp'))?.name).toContain('chunks 2 + 6');
    expect(rows.at(-1)?.name).toContain('2 micro-batches of 4');
    for (const x of rows.slice(1)) {
      const m = /max \|Δθ\| (\S+) = (\S+) of the largest change \(tolerance (\S+)\)/.exec(x.detail);
      expect(m, x.detail).not.toBeNull();
      const [rel, tol] = [Number(m?.[2]), Number(m?.[3])];
      // 2 steps x (8 x 32 x 32 + 2 terms) x 2^-24: the bound the check states
      expect(tol).toBeCloseTo((2 * (8 * 1024 + 2)) / 2 ** 24, 6);
      expect(rel).toBeLessThanOrEqual(tol);
    }
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuite name="webddp check: equivalence" tests="8" failures="0"');
    expect(xml).toContain('classname="webddp.check.equivalence" name="zero3, 2 ranks x 4, 2 steps"');
  });

  it('a check that checks nothing fails', async () => {
    const r = await webddp('check', '--only', 'kernels', '--kernels', 'no_such_kernel', '--json');
    expect(r.code).toBe(1);
    const rows = report(r.out).rows;
    expect(rows.map((x) => x.status)).toEqual(['fail']);
    expect(rows[0]?.detail).toMatch(/no kernel matches/);
  });
});

describe('webddp devices and --version', () => {
  it('lists the adapters Dawn sees with their features and limits; --version prints the package version', async () => {
    const r = await webddp('devices', '--json');
    expect(r.code, r.err).toBe(0);
    const { runtime, adapters } = JSON.parse(r.out) as { runtime: string; adapters: AdapterReport[] };
    expect(runtime).toBe('node-dawn');
    expect(adapters.length).toBeGreaterThan(0);
    const a = adapters[0];
    expect(a?.requests.length).toBeGreaterThan(0);
    expect(a?.features.length).toBeGreaterThan(0);
    expect(Object.keys(a?.limits ?? {}).sort()).toEqual([...KEY_LIMITS].sort());
    expect(a?.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256);
    // SwiftShader: no shader-f16 and no subgroup matrices, with or without Dawn's toggles, so listed once
    expect(a?.toggles).toEqual([]);
    expect(a?.halfMatrixShapes).toEqual([]);
    expect(adapters.filter((x) => x.toggles.length > 0)).toEqual([]);
    const v = await webddp('--version');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(v.out).toBe(`webddp ${pkg.version}\n`);
  });
});
