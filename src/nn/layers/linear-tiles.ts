// Which tiled kernels a linear layer uses, with which tiles and how many split-K slices: a tiled
// kernel runs where the tuning asks for it, for layers with long sums (at least 256 inputs: fc1's
// 4096; fc2's 128 keep the register kernels), where the device's workgroup-storage and invocation
// limits hold the tile. Bad tile constants (from --tuning) are an error naming them.
import { KERNELS } from '../../gpu/kernels.ts';
import { cdiv } from '../../gpu/op.ts';
import type { HalfMatrixUse, Tuning } from '../../gpu/tuning.ts';

/** Override constants of linear_forward_tiled: TN samples x TO features per workgroup, TK inputs a step. */
export interface ForwardTiles {
  readonly TN: number;
  readonly TO: number;
  readonly TK: number;
}

/** Override constants of linear_backward_weight_tiled: TO outputs x TI inputs per workgroup, TK samples a step. */
export interface WeightTiles {
  readonly TO: number;
  readonly TI: number;
  readonly TK: number;
}

type Limits = Pick<GPUSupportedLimits, 'maxComputeWorkgroupStorageSize' | 'maxComputeInvocationsPerWorkgroup'>;

/**
 * conv2d_backward_weight_reduce's constants for the tiled weight gradient's slices: one lane per
 * output, a few slices each (the real-GPU tuning's 16 lanes suit conv1's thousands of slices).
 */
export const WEIGHT_REDUCE = { OUTS: 256, LANES: 1 } as const;

/** The least inputs for which a layer takes the tiled kernels. */
const LONG_SUMS = 256;

function fits(kernel: string, a: number, b: number, tk: number, limits?: Limits): boolean {
  if (a % 4 !== 0 || b % 4 !== 0)
    throw new Error(`tuning ${kernel}: its tiles must be multiples of 4 (got ${a}, ${b})`);
  const bytes = 4 * tk * (a + 4 + b + 4);
  const invocations = (a / 4) * (b / 4);
  return (
    !limits ||
    (bytes <= limits.maxComputeWorkgroupStorageSize && invocations <= limits.maxComputeInvocationsPerWorkgroup)
  );
}

export function forwardTiles(inputs: number, tuning: Tuning, limits?: Limits): ForwardTiles | null {
  if (tuning.linearForward !== 'tiled' || inputs < LONG_SUMS) return null;
  const t = { ...KERNELS.linear_forward_tiled.overrides, ...tuning.kernels.linear_forward_tiled } as ForwardTiles;
  return fits('linear_forward_tiled', t.TN, t.TO, t.TK, limits) ? t : null;
}

/**
 * The forward's split-K slices: slices of 256 inputs (16 for fc1), fewer where the output tiles
 * alone come near 4 x targetThreads invocations. Measured on the H200 at batch 2048: fc1's forward
 * took 0.244 ms in 4 slices (targetThreads invocations), 0.148 ms in 16.
 */
export function forwardSplits(inputs: number, outputs: number, batch: number, tuning: Tuning, t: ForwardTiles): number {
  const invocations = cdiv(outputs, t.TO) * cdiv(batch, t.TN) * (t.TO / 4) * (t.TN / 4);
  return Math.max(1, Math.min(cdiv(inputs, LONG_SUMS), cdiv(4 * tuning.targetThreads, invocations)));
}

export function weightTiles(inputs: number, tuning: Tuning, limits?: Limits): WeightTiles | null {
  if (tuning.linearWeight !== 'tiled' || inputs < LONG_SUMS) return null;
  const t = {
    ...KERNELS.linear_backward_weight_tiled.overrides,
    ...tuning.kernels.linear_backward_weight_tiled,
  } as WeightTiles;
  return fits('linear_backward_weight_tiled', t.TO, t.TI, t.TK, limits) ? t : null;
}

/** The weight gradient's split-K slices over the batch: slices of at least 64 samples, up to 4 x targetThreads invocations. */
export function weightSplits(inputs: number, outputs: number, batch: number, tuning: Tuning, t: WeightTiles): number {
  const invocations = cdiv(inputs, t.TI) * cdiv(outputs, t.TO) * (t.TI / 4) * (t.TO / 4);
  return Math.max(1, Math.min(cdiv(batch, 64), cdiv(4 * tuning.targetThreads, invocations)));
}

/** Rows and columns of C per workgroup of the `*_sgmat` kernels (4 x 4 blocks of 16). */
export const MATRIX_TILE = 64;

/**
 * Whether a layer with long sums computes in f16 subgroup matrices: an fp16 run (halves as
 * parameters) where the tuning asks for it and the device has them (Gpu.halfMatrix).
 */
export function useHalfMatrix(
  use: HalfMatrixUse,
  inputs: number,
  tuning: Tuning,
  paramStorage: string,
  halfMatrix: boolean,
): boolean {
  return tuning.halfMatrix.includes(use) && paramStorage === 'f16' && halfMatrix && inputs >= LONG_SUMS;
}

/** linear_forward_sgmat's split-K slices: about 1024 workgroups, slices of at least 64 inputs. */
export function matrixForwardSplits(inputs: number, outputs: number, batch: number): number {
  const perSlice = cdiv(batch, MATRIX_TILE) * cdiv(outputs, MATRIX_TILE);
  return Math.max(1, Math.min(cdiv(inputs, 64), cdiv(1024, perSlice)));
}

/** linear_backward_weight_sgmat's split-K slices over the batch: slices of 64 samples. */
export function matrixWeightSplits(batch: number): number {
  return Math.max(1, cdiv(batch, 64));
}
