// The check's verdicts without a GPU: a baseline judges bench rows (slower than --max-slowdown
// fails, faster or within passes, a row the baseline lacks passes with a note, a baseline row not
// measured fails, another adapter's baseline fails), bad baseline files are refused by field, and
// the JUnit writer escapes what XML cannot hold.
import { describe, expect, it } from 'vitest';
import { compareWithBaseline, makeBaseline, parseBaseline } from '../../src/check/baseline.ts';
import { toJUnit, xmlEscape } from '../../src/check/junit.ts';
import { countRows, reportOk, type CheckReport, type CheckRow } from '../../src/check/result.ts';
import type { AdapterSummary } from '../../src/gpu/device.ts';

const adapter: AdapterSummary = {
  vendor: 'nvidia',
  architecture: 'hopper',
  device: '',
  description: 'NVIDIA H200',
  fallback: false,
  subgroupMinSize: 32,
  subgroupMaxSize: 32,
};
const bench = (name: string, ips: number): CheckRow => ({
  group: 'bench',
  name,
  status: 'pass',
  ms: 1,
  detail: `${ips} images/s`,
  imagesPerSec: ips,
});
const kernel: CheckRow = { group: 'kernels', name: 'scale: x', status: 'pass', ms: 1, detail: 'ok' };

describe('throughput baselines', () => {
  const base = makeBaseline('0.1.0', adapter, [bench('b128', 1000), bench('b512', 2000), kernel]);

  it('records only the bench rows, and reads back what it wrote', () => {
    expect(base.imagesPerSec).toEqual({ b128: 1000, b512: 2000 });
    expect(parseBaseline(JSON.stringify(base), 'b.json')).toEqual(base);
  });

  it('fails a row slower than the limit, passes one within it or faster', () => {
    const rows = compareWithBaseline([kernel, bench('b128', 899), bench('b512', 1801)], base, adapter, 0.1);
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['scale: x', 'pass'],
      ['b128', 'fail'],
      ['b512', 'pass'],
    ]);
    expect(rows[1]?.detail).toMatch(/baseline 1000\.0 images\/s \(-10\.1%, limit -10\.0%\)/);
    expect(
      compareWithBaseline([bench('b128', 5000), bench('b512', 2000)], base, adapter, 0).every(
        (r) => r.status === 'pass',
      ),
    ).toBe(true);
  });

  it('fails a baseline row the run did not measure, and a baseline from another adapter', () => {
    const missing = compareWithBaseline([bench('b128', 1000), bench('b64', 10)], base, adapter, 0.1);
    expect(missing.map((r) => [r.name, r.status])).toEqual([
      ['b128', 'pass'],
      ['b64', 'pass'],
      ['b512', 'fail'],
    ]);
    expect(missing[1]?.detail).toMatch(/not in the baseline/);
    const other = compareWithBaseline(
      [bench('b128', 1000), bench('b512', 2000)],
      base,
      { ...adapter, description: 'A100' },
      0.1,
    );
    expect(other[0]).toMatchObject({ name: 'baseline adapter', status: 'fail' });
    expect(other[0]?.detail).toMatch(/recorded on NVIDIA H200 \(nvidia\), this run is on A100/);
  });

  it('refuses bad files by field', () => {
    expect(() => parseBaseline('{', 'b.json')).toThrow(/b\.json: not JSON/);
    expect(() => parseBaseline('{"adapter":{},"imagesPerSec":{}}', 'b.json')).toThrow(/holds no throughput/);
    expect(() => parseBaseline('{"adapter":{},"imagesPerSec":{"x":-1}}', 'b.json')).toThrow(
      /imagesPerSec\['x'\] must be a positive number/,
    );
    expect(() => parseBaseline('{"imagesPerSec":{"x":1}}', 'b.json')).toThrow(/'adapter' must be an object/);
  });
});

describe('verdict and JUnit', () => {
  it('nothing passed is not ok; a failure is not ok', () => {
    expect(reportOk([])).toBe(false);
    expect(reportOk([{ ...kernel, status: 'skip' }])).toBe(false);
    expect(reportOk([kernel, { ...kernel, status: 'fail' }])).toBe(false);
    expect(reportOk([kernel, { ...kernel, status: 'skip' }])).toBe(true);
  });

  it('escapes markup and drops characters XML 1.0 cannot hold', () => {
    expect(xmlEscape(`a<b>&"c'\u0001d`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;d');
    const rows: CheckRow[] = [kernel, { ...kernel, name: 'x<y', status: 'fail', detail: 'max abs 1 > 1e-5 & "more"' }];
    const r: CheckReport = {
      version: '0.1.0',
      runtime: 'node-dawn',
      device: { adapter, features: [] },
      tuning: {},
      rows,
      ok: false,
      counts: countRows(rows),
      seconds: 1,
    };
    const xml = toJUnit(r);
    expect(xml).toContain('<testsuites name="webddp check" tests="2" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('name="x&lt;y"');
    expect(xml).toContain('<failure message="max abs 1 &gt; 1e-5 &amp; &quot;more&quot;">');
  });
});
