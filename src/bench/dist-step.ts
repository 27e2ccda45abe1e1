// Data-parallel step time: for each mode and worker count, a short run on the synthetic dataset
// (one worker thread or Web Worker per rank, each with its own device; where asked, DDP also with
// the ranks sharing one device, --colocate, side by side); the median step time after
// warm-up, images/s over all ranks, and how much of rank 0's step was spent waiting in collectives.
// Runs wherever a Coordinator can spawn ranks (Node + Dawn, or a browser page).
import type { Mode } from '../config.ts';
import { parseConfig, runsPlaced, validateConfig } from '../parallel/index.ts';
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
   * Also every DDP run of two or more ranks with the ranks sharing one device (webddp train
   * --colocate), started by this spawner for W ranks: a row beside each own-devices row.
   */
  readonly colocated?: (world: number) => SpawnWorker;
}

export interface DistBenchRow {
  readonly mode: Mode;
  /** The ranks shared one device (--colocate) instead of one each. */
  readonly shared: boolean;
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
      const placements =
        workers > 1 && o.colocated && runsPlaced(check.config, 'shared-device') ? [false, true] : [false];
      for (const shared of placements) {
        const spawn = shared && o.colocated ? o.colocated(workers) : o.spawn;
        const row = await measure(o, mode, workers, spawn, shared);
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
  shared: boolean,
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
  const c = await Coordinator.start({ config, data: o.data, spawn, ...(shared ? { colocated: true } : {}) });
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
      samples = e.samples;
    }
  } finally {
    await c.close();
  }
  const stepMs = median(ms);
  return {
    mode,
    shared,
    workers,
    batch: o.batch,
    stepMs,
    imagesPerSec: (samples * 1000) / stepMs,
    commMs: comm.reduce((a, b) => a + b, 0) / Math.max(1, comm.length),
    steps: ms.length,
    peakBytes: peak,
  };
}

export function formatDistBench(rows: readonly DistBenchRow[]): string {
  const head = ['mode', 'workers', 'batch/worker', 'step ms', 'images/s', 'comm ms (rank 0)', 'peak MiB (rank 0)'];
  const body = rows.map((r) => [
    r.shared ? `${r.mode} (one device)` : r.mode,
    String(r.workers),
    String(r.batch),
    r.stepMs.toFixed(1),
    r.imagesPerSec.toFixed(1),
    r.commMs.toFixed(1),
    (r.peakBytes / 2 ** 20).toFixed(1),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  return [head, ...body]
    .map((c) => c.map((x, i) => (i === 0 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0))).join('  '))
    .join('\n');
}
