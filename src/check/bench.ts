// The throughput check: one worker's training step (SimpleCNN, SGD with momentum, upload and loss
// readback included; src/throughput/train-step.ts) at the batch sizes of the adapter's class, one row
// per batch with its images/s. A row passes when the step runs and its loss is finite; a baseline
// (baseline.ts) then judges the speed.
import { benchmarkTraining } from '../throughput/train-step.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Tuning } from '../gpu/tuning.ts';
import type { CheckRow } from './result.ts';

export interface BenchSize {
  readonly batches: readonly number[];
  readonly steps: number;
  readonly warmup: number;
}

/** The throughput measured on each class of adapter, and --quick's. */
export function benchSize(software: boolean, quick: boolean): BenchSize {
  if (software) return quick ? { batches: [4], steps: 2, warmup: 1 } : { batches: [8, 32], steps: 3, warmup: 1 };
  return quick ? { batches: [128], steps: 10, warmup: 3 } : { batches: [128, 512, 2048], steps: 30, warmup: 5 };
}

export const benchRowName = (batch: number) => `train step, batch ${batch}`;

export async function checkThroughput(gpu: Gpu, tuning: Tuning, size: BenchSize): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  for (const batch of size.batches) {
    const t0 = performance.now();
    try {
      const [r] = await benchmarkTraining(gpu, { batches: [batch], steps: size.steps, warmup: size.warmup, tuning });
      if (!r) throw new Error('the benchmark returned no row');
      rows.push({
        group: 'bench',
        name: benchRowName(batch),
        status: Number.isFinite(r.imagesPerSec) && r.imagesPerSec > 0 ? 'pass' : 'fail',
        ms: performance.now() - t0,
        detail: `${r.imagesPerSec.toFixed(1)} images/s, ${r.stepMs.toFixed(2)} ms/step over ${r.steps} steps (forward ${r.forwardMs.toFixed(2)}, backward ${r.backwardMs.toFixed(2)}, optimizer ${r.optimizerMs.toFixed(2)} ms)`,
        imagesPerSec: r.imagesPerSec,
      });
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      rows.push({ group: 'bench', name: benchRowName(batch), status: 'fail', ms: performance.now() - t0, detail });
    }
  }
  return rows;
}
