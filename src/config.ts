// The one typed training configuration that the page, the CLI and the workers share, with its
// defaults and validation. Every field is checked here, so a bad value is refused at the control
// (or the flag) with a message and never reaches a worker.
import { MAX_WIDTH, MIN_WIDTH } from './nn/spec.ts';
import { parseSchedule } from './schedule/params.ts';
import type { LrScheduleConfig } from './schedule/types.ts';
import { BOUNDS, boundText, inBound, type Bound } from './input/bounds.ts';

export const MODES = ['ddp', 'dp', 'balanced-dp', 'zero1', 'zero2', 'zero3'] as const;
export type Mode = (typeof MODES)[number];
export const OPTIMIZERS = ['sgd', 'adam', 'adamw'] as const;
export const MAX_WORKERS = 8;

export interface TrainConfig {
  readonly mode: Mode;
  /** Number of workers (ranks), each with its own device. */
  readonly workers: number;
  /** Samples per worker per step (DP and BalancedDP split a global batch of workers x this). */
  readonly batchSize: number;
  /** BalancedDataParallel: samples on worker 0 (the rest are shared by the others). */
  readonly gpu0Bsz: number;
  readonly epochs: number;
  readonly optimizer: (typeof OPTIMIZERS)[number];
  readonly lr: number;
  /** SGD momentum. */
  readonly momentum: number;
  readonly weightDecay: number;
  /** Model width multiplier (1 = the SimpleCNN of PyTorch's DDP tutorial). */
  readonly width: number;
  readonly seed: number;
  /** Random crop (4-pixel padding) and horizontal flip. */
  readonly augment: boolean;
  /** DistributedSampler shuffle (off: ranks take every W-th record in order). */
  readonly shuffle: boolean;
  /** DistributedSampler drop_last. */
  readonly dropLast: boolean;
  /** DDP gradient bucket size cap, MiB (PyTorch's bucket_cap_mb). */
  readonly bucketCapMB: number;
  /** Micro-batches per optimizer step (DDP no_sync accumulation). */
  readonly gradAccum: number;
  /** clip_grad_norm_ max norm; 0 turns clipping off. */
  readonly clipGradNorm: number;
  /** Use only the first N training / test records (0: all). */
  readonly trainLimit: number;
  readonly testLimit: number;
  /** Verify that replicas hold identical parameters every K optimizer steps (0: never). */
  readonly checkEvery: number;
  /** A step (or collective) that takes longer fails the run, naming the rank. */
  readonly stepTimeoutMs: number;
  /** Learning-rate schedule over optimizer steps (src/schedule/), or a constant lr. */
  readonly schedule: LrScheduleConfig | 'none';
  /** Adam / AdamW betas and eps (torch's defaults). */
  readonly adamBetas: readonly [number, number];
  readonly adamEps: number;
  /** fp16 mixed precision (DeepSpeed's fp16 section); the loss scale is static when fp16LossScale > 0, else dynamic. */
  readonly fp16: boolean;
  readonly fp16LossScale: number;
  /** Dynamic loss scaling (src/optim/loss-scaler.ts): first scale 2^power, window, hysteresis, floor. */
  readonly fp16InitialScalePower: number;
  readonly fp16LossScaleWindow: number;
  readonly fp16Hysteresis: number;
  readonly fp16ConsecutiveHysteresis: boolean;
  readonly fp16MinLossScale: number;
  /** bfloat16 mixed precision (DeepSpeed's bf16 section): bfloat16 storage, fp32 master, no loss scaling (ddp, zero1, zero2). */
  readonly bf16: boolean;
  /** Log every N optimizer steps (DeepSpeed's steps_per_print); 0: the front end's own cadence. */
  readonly stepsPerPrint: number;
  /**
   * ZeRO's bucket, in elements (DeepSpeed's reduce_bucket_size): the most one gradient (or ZeRO-3
   * parameter) piece holds; a Linear layer larger than it is computed in row pieces. webddp's default
   * is 64 Ki elements, so that a small model's partitioned gradients show (DeepSpeed's is 5e8).
   */
  readonly reduceBucketSize: number;
}

export const DEFAULT_CONFIG: TrainConfig = {
  mode: 'ddp',
  workers: 2,
  batchSize: 32,
  gpu0Bsz: 8,
  epochs: 1,
  optimizer: 'sgd',
  lr: 0.01,
  momentum: 0.9,
  weightDecay: 0,
  width: 1,
  seed: 0,
  augment: false,
  shuffle: true,
  dropLast: false,
  bucketCapMB: 25,
  gradAccum: 1,
  clipGradNorm: 0,
  trainLimit: 0,
  testLimit: 0,
  checkEvery: 50,
  stepTimeoutMs: 300_000,
  schedule: 'none',
  adamBetas: [0.9, 0.999],
  adamEps: 1e-8,
  fp16: false,
  fp16LossScale: 0,
  fp16InitialScalePower: 16,
  fp16LossScaleWindow: 1000,
  fp16Hysteresis: 2,
  fp16ConsecutiveHysteresis: false,
  fp16MinLossScale: 1,
  bf16: false,
  stepsPerPrint: 0,
  reduceBucketSize: 65_536,
};

export interface ConfigIssue {
  readonly field: keyof TrainConfig | 'config';
  readonly message: string;
}

type Check = (v: unknown) => string | null;
const int =
  (lo: number, hi: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi
      ? null
      : `must be an integer from ${lo} to ${hi}`;
const num =
  (lo: number, hi: number, loOpen = false): Check =>
  (v) =>
    typeof v === 'number' && Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && v <= hi
      ? null
      : `must be a number ${loOpen ? '>' : '>='} ${lo} and <= ${hi}`;
const bounded =
  (b: Bound): Check =>
  (v) =>
    inBound(b, v) ? null : `must be a number ${boundText(b)}`;
const oneOf =
  (xs: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && xs.includes(v) ? null : `must be one of ${xs.join(', ')}`;
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false');
const schedule: Check = (v) => {
  if (v === 'none') return null;
  const r = parseSchedule(v, 'schedule', false);
  return r.ok ? null : `must be 'none' or a schedule: ${r.issues.join('; ')}`;
};
const betas: Check = (v) =>
  Array.isArray(v) && v.length === 2 && v.every((b) => typeof b === 'number' && b >= 0 && b < 1)
    ? null
    : 'must be two numbers in [0, 1)';

const CHECKS: Record<keyof TrainConfig, Check> = {
  mode: oneOf(MODES),
  workers: int(1, MAX_WORKERS),
  batchSize: int(1, 4096),
  gpu0Bsz: int(0, 4096 * MAX_WORKERS),
  epochs: int(1, 1000),
  optimizer: oneOf(OPTIMIZERS),
  lr: bounded(BOUNDS.lr),
  momentum: bounded(BOUNDS.momentum),
  weightDecay: bounded(BOUNDS.weightDecay),
  width: num(MIN_WIDTH, MAX_WIDTH),
  seed: int(0, Number.MAX_SAFE_INTEGER),
  augment: bool,
  shuffle: bool,
  dropLast: bool,
  bucketCapMB: num(0, 1024, true),
  gradAccum: int(1, 64),
  clipGradNorm: num(0, 1e6),
  trainLimit: int(0, 10_000_000),
  testLimit: int(0, 10_000_000),
  checkEvery: int(0, 1_000_000),
  stepTimeoutMs: int(1000, 3_600_000),
  schedule,
  adamBetas: betas,
  adamEps: bounded(BOUNDS.adamEps),
  fp16: bool,
  fp16LossScale: bounded(BOUNDS.fp16LossScale),
  fp16InitialScalePower: int(0, 64),
  fp16LossScaleWindow: int(1, 1_000_000_000),
  fp16Hysteresis: int(1, 1_000_000),
  fp16ConsecutiveHysteresis: bool,
  fp16MinLossScale: int(1, 2 ** 32),
  bf16: bool,
  stepsPerPrint: int(0, 1_000_000),
  reduceBucketSize: int(1, 1e12),
};

/**
 * Checks every field of a partial config over the defaults: the full config, or every problem
 * found. Each mode's own rules are added by validateConfig (src/parallel/index.ts).
 */
export function validateFields(
  input: unknown,
): { ok: true; config: TrainConfig } | { ok: false; issues: ConfigIssue[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, issues: [{ field: 'config', message: 'must be an object' }] };
  const issues: ConfigIssue[] = [];
  const merged: Record<string, unknown> = { ...DEFAULT_CONFIG };
  for (const [k, v] of Object.entries(input)) {
    if (!Object.hasOwn(CHECKS, k)) {
      issues.push({ field: 'config', message: `unknown setting '${k}'` });
      continue;
    }
    if (v !== undefined) merged[k] = v;
  }
  for (const [k, check] of Object.entries(CHECKS) as [keyof TrainConfig, Check][]) {
    const problem = check(merged[k]);
    if (problem) issues.push({ field: k, message: `${k} ${problem} (got ${JSON.stringify(merged[k])})` });
  }
  // A rule across fields that no mode owns (DeepSpeed's own check, with its wording).
  if (issues.length === 0 && merged.fp16 === true && merged.bf16 === true)
    issues.push({ field: 'bf16', message: 'bfloat16 and fp16 modes cannot be simultaneously enabled' });
  return issues.length === 0 ? { ok: true, config: merged as unknown as TrainConfig } : { ok: false, issues };
}
