// webddp against TensorFlow.js's WebGPU backend in the same browser session: the same SimpleCNN,
// SGD with momentum 0.9, cross-entropy, one batch size, random data; warm-up steps, then timed
// steps, webddp first (one worker, bench/train-step.ts), then TF.js (bench/tfjs-step.ts), one after
// the other so they never run at once (webddp's device stays, idle, until the caller destroys it). Runs in bench.html?kind=compare
// (`webddp bench --runtime chromium --compare tfjs`).
import type { Gpu } from '../src/gpu/device.ts';
import { benchmarkTfjs, type TfjsBenchRow } from './tfjs-step.ts';
import { benchmarkTraining, type TrainBenchRow } from '../src/bench/train-step.ts';

export interface CompareOptions {
  readonly batch: number;
  readonly steps: number;
  readonly warmup: number;
}

export interface CompareResult {
  readonly batch: number;
  readonly webddp: TrainBenchRow;
  readonly tfjs: TfjsBenchRow;
  /** webddp's images/s over TF.js's. */
  readonly ratio: number;
}

/** Measures webddp on `gpu` (then destroyed by the caller), then TF.js on a device of its own. */
export async function compareWithTfjs(
  gpu: Gpu,
  o: CompareOptions,
  status: (line: string) => void = () => {},
): Promise<CompareResult> {
  status(`webddp: batch ${o.batch}, ${o.warmup} warm-up + ${o.steps} timed steps ...`);
  const [webddp] = await benchmarkTraining(gpu, { batches: [o.batch], steps: o.steps, warmup: o.warmup });
  if (!webddp) throw new Error('the webddp benchmark returned no row');
  status(`webddp: ${webddp.imagesPerSec.toFixed(1)} images/s; TF.js (webgpu) ...`);
  const tfjs = await benchmarkTfjs({ batch: o.batch, steps: o.steps, warmup: o.warmup });
  const first = tfjs.losses[0] ?? NaN;
  const last = tfjs.losses[tfjs.losses.length - 1] ?? NaN;
  if (!(last < first))
    throw new Error(`TF.js did not train: its loss went from ${first} to ${last} on one fixed batch`);
  return { batch: o.batch, webddp, tfjs, ratio: webddp.imagesPerSec / tfjs.imagesPerSec };
}

export function formatCompare(r: CompareResult): string {
  const losses = r.tfjs.losses;
  const rows = [
    ['', 'images/s', 'step ms', 'first step ms'],
    ['webddp', r.webddp.imagesPerSec.toFixed(1), r.webddp.stepMs.toFixed(0), '-'],
    [
      `TF.js ${r.tfjs.version} (${r.tfjs.backend})`,
      r.tfjs.imagesPerSec.toFixed(1),
      r.tfjs.stepMs.toFixed(0),
      r.tfjs.firstStepMs.toFixed(0),
    ],
  ];
  const w = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0))).join('  ');
  return [
    `batch ${r.batch}, ${r.webddp.steps} timed steps after ${r.tfjs.warmup} warm-up`,
    ...rows.map(line),
    `ratio (webddp / TF.js): ${r.ratio.toFixed(2)}x`,
    `TF.js loss: ${(losses[0] ?? NaN).toFixed(4)} -> ${(losses[losses.length - 1] ?? NaN).toFixed(4)}`,
  ].join('\n');
}
