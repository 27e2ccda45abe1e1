// `webddp check` in any runtime: the environment (check-env.ts) gives a device, a worker spawner and
// the fixtures; this runs the groups asked for, in order (kernels, model, precision, ddp, equivalence, learn, bench), on the
// adapter's tuning (or --tuning over it), compares the throughput with a baseline when one is
// given, and returns the report. Exit-code rule: ok only when no row failed and one passed.
import type { KernelName } from '../gpu/kernels.ts';
import { parseTuning, tuningFor, type Tuning } from '../gpu/tuning.ts';
import { VERSION } from '../version.ts';
import { compareWithBaseline, DEFAULT_MAX_SLOWDOWN, type Baseline } from './baseline.ts';
import { benchSize, checkThroughput } from './bench.ts';
import type { CheckEnvironment } from './check-env.ts';
import { checkEquivalence, EQUIVALENCE_FULL, EQUIVALENCE_QUICK } from './equivalence.ts';
import { checkKernels } from './kernels.ts';
import { checkLearning, LEARN_FULL, LEARN_QUICK } from './learn.ts';
import { checkAutocast, checkDdp, checkModel } from './pytorch.ts';
import { CHECK_GROUPS, countRows, reportOk, type CheckGroup, type CheckReport, type CheckRow } from './result.ts';

export interface CheckOptions {
  /** The groups to run (all by default). */
  readonly groups?: readonly CheckGroup[];
  /** Smaller learning, equivalence and throughput checks (CI on a software adapter, the package test). */
  readonly quick?: boolean;
  /** Only kernels whose name contains one of these. */
  readonly kernels?: readonly string[];
  /** WGSL replacing bundled kernels on the check's device (kernel and model checks). */
  readonly shaders?: Partial<Record<KernelName, string>>;
  /** A tuning as JSON (src/gpu/tuning.ts parseTuning) over the adapter's own. */
  readonly tuning?: string;
  readonly baseline?: Baseline;
  /** Largest slowdown against the baseline that still passes (0.1 = 10%). */
  readonly maxSlowdown?: number;
  /** Called with every row as it is decided (progress). */
  readonly onRow?: (row: CheckRow) => void;
  /** Called when a group starts. */
  readonly onGroup?: (group: CheckGroup) => void;
}

export async function runCheck(env: CheckEnvironment, o: CheckOptions = {}): Promise<CheckReport> {
  const t0 = performance.now();
  const groups = new Set(o.groups && o.groups.length > 0 ? o.groups : CHECK_GROUPS);
  const gpu = await env.acquire('check');
  const features = [...gpu.device.features].sort();
  const rows: CheckRow[] = [];
  const add = (r: readonly CheckRow[]) => {
    for (const row of r) {
      rows.push(row);
      if (row.group !== 'kernels') o.onRow?.(row);
    }
  };
  let tuning: Tuning;
  try {
    gpu.kernels.sources = { ...o.shaders };
    tuning = o.tuning ? parseTuning(o.tuning, tuningFor(gpu.adapter)) : tuningFor(gpu.adapter);
    const software = gpu.adapter.fallback;
    if (groups.has('kernels')) {
      o.onGroup?.('kernels');
      const k = await checkKernels(gpu, tuning, {
        ...(o.kernels ? { only: o.kernels } : {}),
        ...(o.onRow ? { onRow: o.onRow } : {}),
      });
      if (k.length === 0)
        add([
          {
            group: 'kernels',
            name: 'kernels',
            status: 'fail',
            ms: 0,
            detail: `no kernel matches ${JSON.stringify(o.kernels)}`,
          },
        ]);
      else rows.push(...k);
    }
    if (groups.has('model')) {
      o.onGroup?.('model');
      add(await checkModel(gpu, tuning, env.readFixture));
    }
    if (groups.has('precision')) {
      o.onGroup?.('precision');
      add(await checkAutocast(gpu, tuning, env.readFixture));
    }
    if (groups.has('ddp')) {
      o.onGroup?.('ddp');
      add(await checkDdp(env.spawn, env.readFixture));
    }
    if (groups.has('equivalence')) {
      o.onGroup?.('equivalence');
      add(await checkEquivalence(env.spawn, o.quick ? EQUIVALENCE_QUICK : EQUIVALENCE_FULL));
    }
    if (groups.has('learn')) {
      o.onGroup?.('learn');
      add([await checkLearning(env.spawn, o.quick ? LEARN_QUICK : LEARN_FULL)]);
    }
    if (groups.has('bench')) {
      o.onGroup?.('bench');
      add(await checkThroughput(gpu, tuning, benchSize(software, o.quick ?? false)));
    }
  } finally {
    gpu.destroy();
  }
  const report: CheckReport = {
    version: VERSION,
    runtime: env.runtime,
    device: { adapter: gpu.adapter, features },
    tuning,
    rows,
    ok: reportOk(rows),
    counts: countRows(rows),
    seconds: (performance.now() - t0) / 1000,
  };
  return o.baseline ? judge(report, o.baseline, o.maxSlowdown) : report;
}

/** The report with its throughput judged against `baseline` (counts and verdict recomputed). */
export function judge(r: CheckReport, baseline: Baseline, maxSlowdown = DEFAULT_MAX_SLOWDOWN): CheckReport {
  const rows = compareWithBaseline(r.rows, baseline, r.device.adapter, maxSlowdown);
  return { ...r, rows, ok: reportOk(rows), counts: countRows(rows) };
}
