// `webddp check` as a regression test must fail when something regressed: a deliberately broken
// variant of the kernel this adapter's tuning selects (conv2d_forward_wide on SwiftShader,
// conv2d_forward_tiled on a GPU: ReLU clamping at 0.001 instead of 0) fails exactly its ReLU cases;
// a throughput baseline the machine cannot meet fails the bench; the JUnit file is valid XML whose
// counts are the report's; a check that checks nothing fails. Tiny runs: a few kernels, --quick bench.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Baseline } from '../../src/check/baseline.ts';
import type { CheckReport } from '../../src/check/result.ts';
import { webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-check-'));
const report = (out: string) => JSON.parse(out) as CheckReport;

/** The conv forward variant the tuning of this test's adapter selects, and a copy with its ReLU broken. */
async function brokenVariant(): Promise<{ kernel: string; shaders: string }> {
  const probe = report((await webddp('check', '--only', 'kernels', '--kernels', 'clip_coef', '--json')).out);
  const kernel = probe.device.adapter.fallback ? 'conv2d_forward_wide' : 'conv2d_forward_tiled';
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

  it('a throughput baseline faster than this machine fails', async () => {
    const saved = join(dir, 'baseline.json');
    const first = await webddp('check', '--only', 'bench', '--quick', '--save-baseline', saved, '--json');
    expect(first.code, first.err).toBe(0);
    const base = JSON.parse(readFileSync(saved, 'utf8')) as Baseline;
    const names = Object.keys(base.imagesPerSec);
    expect(names.length).toBeGreaterThan(0);

    const fast = join(dir, 'fast.json');
    const tenfold = Object.fromEntries(names.map((n) => [n, (base.imagesPerSec[n] ?? 0) * 10]));
    writeFileSync(fast, JSON.stringify({ ...base, imagesPerSec: tenfold }));
    const slow = await webddp('check', '--only', 'bench', '--quick', '--baseline', fast, '--json');
    expect(slow.code, slow.err).toBe(1);
    const bench = report(slow.out).rows.filter((x) => x.group === 'bench');
    expect(bench.map((x) => x.status)).toEqual(names.map(() => 'fail'));
    expect(bench[0]?.detail).toMatch(/baseline .* images\/s \(-\d+\.\d%, limit -10\.0%\)/);
  });

  it('a check that checks nothing fails', async () => {
    const r = await webddp('check', '--only', 'kernels', '--kernels', 'no_such_kernel', '--json');
    expect(r.code).toBe(1);
    const rows = report(r.out).rows;
    expect(rows.map((x) => x.status)).toEqual(['fail']);
    expect(rows[0]?.detail).toMatch(/no kernel matches/);
  });
});
