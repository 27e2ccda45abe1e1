// Data-parallel step time: for each mode and worker count, a short run on the synthetic dataset in
// both placements where the mode accepts the second (each rank its own device: one worker thread
// or Web Worker per rank; the ranks sharing one device: one worker for them all, as webddp train
// --colocate), side by side; the median step time after warm-up, images/s over all ranks, and
// how much of rank 0's step was spent waiting in collectives.
// Runs wherever a Coordinator can spawn ranks (Node + Dawn, or a browser page).
import type { Mode } from '../config.ts';
import { parseConfig, runsPlaced, validateConfig } from '../parallel/index.ts';
import type { Placement } from '../parallel/mode.ts';
import { Coordinator, type SpawnWorker } from '../runtime/coordinator.ts';
import type { DataSpec } from '../runtime/protocol.ts';

export interface DistBenchOptions {
  readonly workers: readonly number[];
  readonly modes: readonly Mode[];
  /** Samples per worker per step. */
  readonly batch: number;
  readonly steps: number;
  readonly warmup: number;
  readonly data: DataSpec;
  readonly spawn: SpawnWorker;
  readonly width?: number;
  /**
   * Also every run of two or more ranks whose mode accepts sharing a device with the ranks on one
   * device (webddp train --colocate), started by this spawner for W ranks: a row beside each
   * own-devices row. Absent: own devices only.
   */
  readonly colocated?: (world: number) => SpawnWorker;
}

export interface DistBenchRow {
  readonly mode: Mode;
  /** `shared-device`: the ranks shared one device (--colocate); `own-devices`: one device each. */
  readonly placement: Placement;
  readonly workers: number;
  readonly batch: number;
  readonly stepMs: number;
  readonly imagesPerSec: number;
  /** Rank 0's mean time waiting in collectives per step. */
  readonly commMs: number;
  readonly steps: number;
  /** Rank 0's peak memory (bytes). */
  readonly peakBytes: number;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? (s[(s.length - 1) / 2] ?? NaN)
      : ((s[s.length / 2 - 1] ?? 0) + (s[s.length / 2] ?? 0)) / 2;
};

export async function benchmarkDistributed(
  o: DistBenchOptions,
  onRow?: (r: DistBenchRow) => void,
): Promise<DistBenchRow[]> {
  const rows: DistBenchRow[] = [];
  for (const mode of o.modes) {
    for (const workers of o.workers) {
      const check = validateConfig({ mode, workers, batchSize: o.batch });
      if (!check.ok) continue; // e.g. balanced-dp on one worker
      const placements: Placement[] =
        workers > 1 && o.colocated && runsPlaced(check.config, 'shared-device')
          ? ['own-devices', 'shared-device']
          : ['own-devices'];
      for (const placement of placements) {
        const spawn = placement === 'shared-device' && o.colocated ? o.colocated(workers) : o.spawn;
        const row = await measure(o, mode, workers, spawn, placement);
        rows.push(row);
        onRow?.(row);
      }
    }
  }
  return rows;
}

async function measure(
  o: DistBenchOptions,
  mode: Mode,
  workers: number,
  spawn: SpawnWorker,
  placement: Placement,
): Promise<DistBenchRow> {
  const config = parseConfig({
    mode,
    workers,
    batchSize: o.batch,
    epochs: 1,
    trainLimit: (o.warmup + o.steps) * o.batch * workers,
    testLimit: 1,
    checkEvery: 0,
    optimizer: 'sgd',
    lr: 0.01,
    width: o.width ?? 1,
    gpu0Bsz: Math.max(1, Math.floor(o.batch / 2)),
  });
  const c = await Coordinator.start({
    config,
    data: o.data,
    spawn,
    ...(placement === 'shared-device' ? { colocated: true } : {}),
  });
  const ms: number[] = [];
  const comm: number[] = [];
  let peak = 0;
  let samples = 0;
  try {
    for await (const e of c.run()) {
      if (e.type !== 'step' || e.step < o.warmup) continue;
      ms.push(e.ms);
      comm.push(e.workers[0]?.commMs ?? 0);
      peak = Math.max(peak, e.workers[0]?.memory.peak ?? 0);
      samples = Math.max(samples, e.samples); // a full step's (an epoch's last step may be short)
    }
  } finally {
    await c.close();
  }
  const stepMs = median(ms);
  return {
    mode,
    placement,
    workers,
    batch: o.batch,
    stepMs,
    imagesPerSec: (samples * 1000) / stepMs,
    commMs: comm.reduce((a, b) => a + b, 0) / Math.max(1, comm.length),
    steps: ms.length,
    peakBytes: peak,
  };
}

/**
 * The rows as a table, one line per mode and worker count with both placements side by side (a
 * dash where a placement was not run) and the shared placement's speed against own devices.
 */
export function formatDistBench(rows: readonly DistBenchRow[]): string {
  const head = [
    'mode',
    'workers',
    'batch/worker',
    'own: step ms',
    'images/s',
    'comm ms',
    'shared: step ms',
    'images/s',
    'comm ms',
    'shared/own',
    'peak MiB (rank 0)',
  ];
  const keys = [...new Set(rows.map((r) => `${r.mode}/${r.workers}`))];
  const cells = (r: DistBenchRow | undefined) =>
    r ? [r.stepMs.toFixed(1), r.imagesPerSec.toFixed(1), r.commMs.toFixed(1)] : ['-', '-', '-'];
  const body = keys.map((k) => {
    const of = (p: Placement) => rows.find((r) => `${r.mode}/${r.workers}` === k && r.placement === p);
    const own = of('own-devices');
    const shared = of('shared-device');
    const any = own ?? shared;
    return [
      any?.mode ?? '',
      String(any?.workers ?? ''),
      String(any?.batch ?? ''),
      ...cells(own),
      ...cells(shared),
      own && shared ? `${(shared.imagesPerSec / own.imagesPerSec).toFixed(2)}x` : '-',
      (Math.max(own?.peakBytes ?? 0, shared?.peakBytes ?? 0) / 2 ** 20).toFixed(1),
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  return [head, ...body]
    .map((c) => c.map((x, i) => (i === 0 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0))).join('  '))
    .join('\n');
}
