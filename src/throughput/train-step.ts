// Training throughput of one worker: images/s at several batch sizes, each step awaited before the
// next (serial) and with two steps in flight (pipelined, as `webddp train` runs one worker and as
// a PyTorch loop runs: it queues kernels and syncs only to read a value), and the step split into
// forward, backward and optimizer. Runs wherever a Gpu exists (Node + Dawn, or a browser worker).
// The phase split uses GPU timestamps where the adapter has them, else separately submitted and
// awaited phases (wall clock, which includes submit and sync overhead).
import type { Gpu } from '../gpu/device.ts';
import { Recorder } from '../gpu/recorder.ts';
import { Timer } from '../gpu/timer.ts';
import { CpuGenerator } from '../random/generator.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import type { OptimizerConfig } from '../optim/optimizer.ts';
import type { Tuning } from '../gpu/tuning.ts';
import type { Batch } from '../data/batch.ts';
import { Trainer } from '../train/trainer.ts';
import { kernelWork, type KernelWork } from './kernel-work.ts';
import { arithmeticOf, formatCeilings, measureCeilings, type Arithmetic, type Ceilings } from './matmul-ceiling.ts';

export interface TrainBenchOptions {
  readonly batches: readonly number[];
  readonly steps: number;
  readonly warmup: number;
  readonly width?: number;
  readonly optimizer?: OptimizerConfig;
  readonly tuning?: Tuning;
  /**
   * Also time every kernel separately (needs timestamp queries), and measure the matmul ceilings
   * (matmul-ceiling.ts) each kernel's TFLOP/s is compared with.
   */
  readonly profile?: boolean;
  /**
   * fp32 (default), or the trainer's fp16 / bf16 mixed precision: halves as parameters and saved
   * activations, the optimizer on the float32 master (the step a run's worker takes, without the
   * loss scaler's gradient checks, which the DDP runner adds).
   */
  readonly precision?: Precision;
}

export type Precision = 'fp32' | 'fp16' | 'bf16';

export interface TrainBenchRow {
  readonly batch: number;
  /** Each step uploaded, run and its loss read back before the next is submitted. */
  readonly imagesPerSec: number;
  readonly stepMs: number;
  /** Step k+1 uploaded and submitted before step k's loss is awaited (two in flight). */
  readonly pipelinedImagesPerSec: number;
  readonly pipelinedStepMs: number;
  readonly forwardMs: number;
  readonly backwardMs: number;
  readonly optimizerMs: number;
  /** 'gpu-timestamps' or 'wall-clock-phases'. */
  readonly split: string;
  readonly steps: number;
  /** GPU ms per kernel dispatch (one timed pass each), when profiling was asked for. */
  readonly kernels?: Record<string, number>;
  /** With the profile: each timed kernel's TFLOP/s and GB/s (kernel-work.ts: the fewest bytes it must move). */
  readonly kernelRates?: Record<string, KernelRate>;
  /** With the profile: the matmul ceilings measured in the same run on the same device. */
  readonly ceilings?: Ceilings;
}

export interface KernelRate {
  readonly tflops: number;
  readonly gbs: number;
  /** FLOP per byte: below the GPU's balance (about 14 on an H200, float32) memory bounds the kernel. */
  readonly intensity: number;
  /** What the kernel computes in: its products in f16 subgroup matrices, or float32 arithmetic. */
  readonly arithmetic: Arithmetic;
  /** TFLOP/s as a percentage of the ceiling of its arithmetic (absent where it does no FLOPs or the device has no such ceiling). */
  readonly ofCeiling?: number;
}

/**
 * TFLOP/s and GB/s of the profiled kernels whose work kernelWork knows, each against the ceiling of
 * its arithmetic: f16 subgroup matrices where one of the label's kernels computes in them, else fp32.
 */
function rates(
  kernels: Record<string, number>,
  work: Record<string, KernelWork>,
  timer: Timer,
  ceilings: Ceilings,
): Record<string, KernelRate> {
  const out: Record<string, KernelRate> = {};
  for (const [k, ms] of Object.entries(kernels)) {
    const w = work[k];
    if (!w || !(ms > 0)) continue;
    const arithmetic = timer.kernelsOf(k).some((name) => arithmeticOf(name) === 'f16-matrix') ? 'f16-matrix' : 'fp32';
    const tflops = w.flops / ms / 1e9;
    const ceiling = arithmetic === 'f16-matrix' ? ceilings.f16Matrix : ceilings.fp32;
    out[k] = {
      tflops,
      gbs: w.bytes / ms / 1e6,
      intensity: w.flops / w.bytes,
      arithmetic,
      ...(ceiling && tflops > 0 ? { ofCeiling: (100 * tflops) / ceiling.tflops } : {}),
    };
  }
  return out;
}

/** `batch` random CIFAR-sized uint8 images and labels. */
export function randomBatch(batch: number, g: CpuGenerator): Batch {
  const images = new Uint8Array(batch * 3072);
  for (let i = 0; i < images.length; i++) images[i] = g.random() & 0xff;
  return { images, labels: Int32Array.from({ length: batch }, () => g.random() % 10) };
}

async function phaseWallClock(t: Trainer, b: Batch): Promise<[number, number, number]> {
  const plan = await t.upload(b);
  const q = t.gpu.device.queue;
  await q.onSubmittedWorkDone();
  const ms: number[] = [];
  for (const record of [
    (r: Recorder) => t.recordForward(r, plan, true),
    (r: Recorder) => t.recordBackward(r, plan),
    (r: Recorder) => t.recordUpdate(r),
  ]) {
    const t0 = performance.now();
    const rec = new Recorder(t.gpu, 'bench_phase');
    record(rec);
    rec.submit();
    await q.onSubmittedWorkDone();
    ms.push(performance.now() - t0);
  }
  return [ms[0] ?? 0, ms[1] ?? 0, ms[2] ?? 0];
}

/** Mean ms per step with step k+1 submitted before step k's result is awaited. */
async function pipelined(t: Trainer, data: readonly Batch[], steps: number): Promise<number> {
  let inFlight: Promise<unknown> = (await t.submitStep(data[1] ?? data[0]!)).result;
  await inFlight;
  const t0 = performance.now();
  for (let i = 0; i < steps; i++) {
    const next = (await t.submitStep(data[i % 2] ?? data[0]!)).result;
    await inFlight;
    inFlight = next;
  }
  await inFlight;
  return (performance.now() - t0) / steps;
}

/** Measures each batch size in turn; `onRow` sees each result as it is ready. */
export async function benchmarkTraining(
  gpu: Gpu,
  o: TrainBenchOptions,
  onRow?: (r: TrainBenchRow) => void,
): Promise<TrainBenchRow[]> {
  const spec = simpleCnnSpec(o.width ?? 1);
  const rows: TrainBenchRow[] = [];
  const g = new CpuGenerator(0);
  const ceilings = o.profile && gpu.hasTimestamps ? await measureCeilings(gpu) : undefined;
  for (const batch of o.batches) {
    const t = await Trainer.create(gpu, {
      spec,
      maxBatch: batch,
      optimizer: o.optimizer ?? { name: 'sgd', lr: 0.01, momentum: 0.9 },
      ...(o.tuning ? { tuning: o.tuning } : {}),
      ...(o.precision === 'fp16' ? { fp16: true } : o.precision === 'bf16' ? { bf16: true } : {}),
    });
    try {
      const data = [randomBatch(batch, g), randomBatch(batch, g)];
      for (let i = 0; i < o.warmup; i++) await t.step(data[i % 2] ?? data[0]!);
      const t0 = performance.now();
      for (let i = 0; i < o.steps; i++) await t.step(data[i % 2] ?? data[0]!);
      const stepMs = (performance.now() - t0) / o.steps;
      const pipelinedStepMs = await pipelined(t, data, o.steps);
      let split = [0, 0, 0];
      let how = 'wall-clock-phases';
      if (gpu.hasTimestamps) {
        const timer = new Timer(gpu);
        const sums = { forward: 0, backward: 0, optimizer: 0 };
        const n = Math.max(1, Math.min(o.steps, 5));
        for (let i = 0; i < n; i++) {
          const ms = (await t.step(data[0]!, { timer })).gpuMs ?? {};
          sums.forward += ms.forward ?? 0;
          sums.backward += ms.backward ?? 0;
          sums.optimizer += ms.optimizer ?? 0;
        }
        timer.destroy();
        split = [sums.forward / n, sums.backward / n, sums.optimizer / n];
        how = 'gpu-timestamps';
        // Timestamps of 0 everywhere mean the implementation quantises or disables them.
        if (split.every((v) => v === 0)) {
          split = await phaseWallClock(t, data[0]!);
          how = 'wall-clock-phases';
        }
      } else {
        split = await phaseWallClock(t, data[0]!);
      }
      let profiled: Pick<TrainBenchRow, 'kernels' | 'kernelRates' | 'ceilings'> = {};
      if (ceilings) {
        const timer = new Timer(gpu, 128);
        await t.step(data[0]!, { timer, profile: true });
        const kernels = (await t.step(data[0]!, { timer, profile: true })).gpuMs ?? {};
        profiled = { kernels, kernelRates: rates(kernels, kernelWork(spec, batch), timer, ceilings), ceilings };
        timer.destroy();
      }
      const row: TrainBenchRow = {
        batch,
        imagesPerSec: (batch * 1000) / stepMs,
        stepMs,
        pipelinedImagesPerSec: (batch * 1000) / pipelinedStepMs,
        pipelinedStepMs,
        forwardMs: split[0] ?? 0,
        backwardMs: split[1] ?? 0,
        optimizerMs: split[2] ?? 0,
        split: how,
        steps: o.steps,
        ...profiled,
      };
      rows.push(row);
      onRow?.(row);
    } finally {
      t.destroy();
    }
  }
  return rows;
}

/**
 * The per-kernel profile of a row, slowest first, with each kernel's TFLOP/s, GB/s, FLOP per byte
 * and TFLOP/s as a percentage of its arithmetic's ceiling (fp32, or f16 subgroup matrices), under
 * the ceilings measured in the same run.
 */
function formatKernelProfile(r: TrainBenchRow): string {
  const ks = Object.entries(r.kernels ?? {}).sort((a, b) => b[1] - a[1]);
  const total = ks.reduce((a, [, v]) => a + v, 0);
  const rate = (k: string) => {
    const x = r.kernelRates?.[k];
    if (!x) return '';
    const tflops = x.tflops > 0 ? `${x.tflops.toPrecision(3).padStart(8)} TFLOP/s` : ''.padStart(16);
    const of =
      x.ofCeiling !== undefined
        ? `  ${x.ofCeiling.toFixed(1).padStart(5)}% of ${x.arithmetic === 'f16-matrix' ? 'f16 matrix' : 'fp32'}`
        : '';
    return `  ${tflops}  ${x.gbs.toPrecision(3).padStart(8)} GB/s  ${x.intensity.toFixed(1).padStart(5)} FLOP/B${of}`;
  };
  return [
    `batch ${r.batch}: GPU time per kernel (total ${total.toFixed(3)} ms; % of the ceiling of its arithmetic)`,
    ...ks.map(
      ([k, v]) =>
        `  ${k.padEnd(34)} ${v.toFixed(3).padStart(8)} ms  ${((100 * v) / (total || 1)).toFixed(1).padStart(5)}%${rate(k)}`,
    ),
  ].join('\n');
}

/** The ceilings (measured once per run) and every profiled row's kernels. */
export function formatProfiles(rows: readonly TrainBenchRow[]): string {
  const profiled = rows.filter((r) => r.kernels);
  const ceilings = profiled.find((r) => r.ceilings)?.ceilings;
  return [...(ceilings ? [formatCeilings(ceilings)] : []), ...profiled.map(formatKernelProfile)].join('\n');
}

export function formatTrainBench(rows: readonly TrainBenchRow[]): string {
  const head = [
    'batch',
    'images/s',
    'step ms',
    'pipelined images/s',
    'step ms',
    'forward',
    'backward',
    'optimizer',
    'split by',
  ];
  const body = rows.map((r) => [
    String(r.batch),
    r.imagesPerSec.toFixed(1),
    r.stepMs.toFixed(2),
    r.pipelinedImagesPerSec.toFixed(1),
    r.pipelinedStepMs.toFixed(2),
    r.forwardMs.toFixed(2),
    r.backwardMs.toFixed(2),
    r.optimizerMs.toFixed(2),
    r.split,
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (c: string[]) => c.map((x, i) => (i === c.length - 1 ? x : x.padStart(w[i] ?? 0))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}
