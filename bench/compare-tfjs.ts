// webddp against TensorFlow.js's WebGPU backend in the same browser session: the same SimpleCNN,
// SGD with momentum 0.9, cross-entropy, one batch size, random data (webddp: one worker, the
// Trainer that `webddp bench` times; TF.js: bench/tfjs-step.ts). After the warm-up steps the two
// take turns: each round times one TF.js step, then `per` webddp steps (about as long), so load from
// other processes that comes and goes weighs on both alike. Never both at once.
// Runs in bench.html?kind=compare (`webddp bench --runtime chromium --compare tfjs`).
import { CpuGenerator } from '../src/random/generator.ts';
import type { Gpu } from '../src/gpu/device.ts';
import { simpleCnnSpec } from '../src/nn/spec.ts';
import { Trainer } from '../src/train/trainer.ts';
import { createTfjsRunner } from './tfjs-step.ts';
import { randomBatch } from '../src/throughput/train-step.ts';

export interface CompareOptions {
  readonly batch: number;
  /** Timed rounds. */
  readonly rounds: number;
  /** webddp steps per round (TF.js takes one). */
  readonly per: number;
  /** Untimed steps of each first (TF.js compiles its shaders in its first step). */
  readonly warmup: number;
}

export interface Side {
  readonly imagesPerSec: number;
  readonly stepMs: number;
  readonly steps: number;
  readonly firstStepMs: number;
  /** Every step's loss, warm-up included (one fixed batch each, so both should fall). */
  readonly losses: readonly number[];
}

export interface CompareResult {
  readonly batch: number;
  readonly rounds: number;
  readonly per: number;
  readonly warmup: number;
  readonly webddp: Side;
  readonly tfjs: Side & { readonly backend: string; readonly version: string };
  /** webddp's images/s over TF.js's, over all rounds. */
  readonly ratio: number;
  /** The same ratio in each round alone (how much the load moved it). */
  readonly roundRatios: readonly number[];
}

async function timed(n: number, step: () => Promise<number>, losses: number[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) losses.push(await step());
  return performance.now() - t0;
}

function side(batch: number, ms: number[], steps: number, first: number, losses: number[]): Side {
  const total = ms.reduce((a, b) => a + b, 0);
  return { imagesPerSec: (batch * steps * 1000) / total, stepMs: total / steps, steps, firstStepMs: first, losses };
}

export async function compareWithTfjs(
  gpu: Gpu,
  o: CompareOptions,
  status: (line: string) => void = () => {},
): Promise<CompareResult> {
  const trainer = await Trainer.create(gpu, {
    spec: simpleCnnSpec(1),
    maxBatch: o.batch,
    optimizer: { name: 'sgd', lr: 0.01, momentum: 0.9 },
  });
  const tfjs = await createTfjsRunner(o.batch);
  try {
    const data = randomBatch(o.batch, new CpuGenerator(0));
    const ours = async () => (await trainer.step(data)).loss;
    const lw: number[] = [];
    const lt: number[] = [];
    status(`warm-up: ${o.warmup} steps each ...`);
    const firstW = o.warmup > 0 ? await timed(1, ours, lw) : NaN;
    const firstT = o.warmup > 0 ? await timed(1, () => tfjs.step(), lt) : NaN;
    await timed(Math.max(0, o.warmup - 1), ours, lw);
    await timed(Math.max(0, o.warmup - 1), () => tfjs.step(), lt);
    const mw: number[] = [];
    const mt: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      mt.push(await timed(1, () => tfjs.step(), lt));
      mw.push(await timed(o.per, ours, lw));
      status(`round ${r + 1}/${o.rounds}: TF.js ${mt[r]!.toFixed(0)} ms/step, webddp ${(mw[r]! / o.per).toFixed(0)}`);
    }
    for (const [who, l] of [
      ['TF.js', lt],
      ['webddp', lw],
    ] as const)
      if (!((l[l.length - 1] ?? NaN) < (l[0] ?? NaN)))
        throw new Error(`${who} did not train: its loss went from ${l[0]} to ${l[l.length - 1]} on one fixed batch`);
    const webddp = side(o.batch, mw, o.rounds * o.per, firstW, lw);
    const t = side(o.batch, mt, o.rounds, firstT, lt);
    return {
      batch: o.batch,
      rounds: o.rounds,
      per: o.per,
      warmup: o.warmup,
      webddp,
      tfjs: { ...t, backend: tfjs.backend, version: tfjs.version },
      ratio: webddp.imagesPerSec / t.imagesPerSec,
      roundRatios: mw.map((w, r) => ((mt[r] ?? NaN) * o.per) / w),
    };
  } finally {
    tfjs.dispose();
    trainer.destroy();
  }
}

export function formatCompare(r: CompareResult): string {
  const rows = [
    ['', 'images/s', 'step ms', 'first step ms', 'loss'],
    ...[
      ['webddp', r.webddp],
      [`TF.js ${r.tfjs.version} (${r.tfjs.backend})`, r.tfjs],
    ].map(([name, s]) => {
      const v = s as Side;
      const loss = `${(v.losses[0] ?? NaN).toFixed(3)} -> ${(v.losses[v.losses.length - 1] ?? NaN).toFixed(3)}`;
      return [name as string, v.imagesPerSec.toFixed(1), v.stepMs.toFixed(0), v.firstStepMs.toFixed(0), loss];
    }),
  ];
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0))).join('  ');
  const rr = r.roundRatios.map((x) => x.toFixed(2)).join(', ');
  return [
    `batch ${r.batch}; ${r.warmup} warm-up steps each, then ${r.rounds} rounds of 1 TF.js + ${r.per} webddp steps`,
    ...rows.map(line),
    `ratio (webddp / TF.js): ${r.ratio.toFixed(2)}x  (per round: ${rr})`,
  ].join('\n');
}
