// Which tiled convolution kernels a layer of ci -> co channels uses, and with which tiles: a tiled
// kernel runs where the tuning asks for it, the layer fills the tile's channels (thinner layers,
// like conv1's 3 input channels, keep the register kernels) and the device's workgroup-storage and
// invocation limits hold the tile. Bad tile constants (from --tuning) are an error naming them.
import { KERNELS } from '../../gpu/kernels.ts';
import type { Tuning } from '../../gpu/tuning.ts';

/** Override constants of conv2d_backward_weight_tiled. */
export interface WeightTiles {
  readonly TCO: number;
  readonly TCI: number;
  readonly ROWS: number;
  readonly TW: number;
}

/**
 * Override constants of conv2d_forward_tiled (TCO outputs, TCI summed) and of
 * conv2d_backward_input_tiled (TCI outputs, TCO summed).
 */
export type ConvTiles = WeightTiles;

type Limits = Pick<GPUSupportedLimits, 'maxComputeWorkgroupStorageSize' | 'maxComputeInvocationsPerWorkgroup'>;

function fits(bytes: number, invocations: number, limits?: Limits): boolean {
  return (
    !limits ||
    (bytes <= limits.maxComputeWorkgroupStorageSize && invocations <= limits.maxComputeInvocationsPerWorkgroup)
  );
}

/**
 * The weight gradient's tile shapes a layer may use, best first: the tuning's, then the registry's
 * (12.8 KB of workgroup memory and 256 invocations: within WebGPU's default limits).
 */
export function weightTileChoices(ci: number, tuning: Tuning): WeightTiles[] {
  if (tuning.convWeight !== 'tiled') return [];
  const base = KERNELS.conv2d_backward_weight_tiled.overrides as WeightTiles;
  const tuned = { ...base, ...tuning.kernels.conv2d_backward_weight_tiled };
  const same = (Object.keys(base) as (keyof WeightTiles)[]).every((k) => tuned[k] === base[k]);
  return (same ? [tuned] : [tuned, base]).filter((t) => ci >= t.TCI);
}

/**
 * The weight gradient's tiles (TCO x TCI channels, ROWS x TW pixels): the first choice the
 * device's limits hold, or null for the register kernel.
 */
export function weightTiles(ci: number, tuning: Tuning, limits?: Limits): WeightTiles | null {
  const fitting = (t: WeightTiles) =>
    fits(4 * (t.ROWS * t.TW * t.TCO + t.TCI * (t.ROWS + 2) * (t.TW + 2)), (t.TCO / 4) * t.TCI, limits);
  return weightTileChoices(ci, tuning).find(fitting) ?? null;
}

function checkTiles(kernel: string, t: ConvTiles, out: 'TCO' | 'TCI'): void {
  if (t[out] % 8 !== 0) throw new Error(`tuning ${kernel}.${out} must be a multiple of 8 (got ${t[out]})`);
  if (t.TW % 4 !== 0) throw new Error(`tuning ${kernel}.TW must be a multiple of 4 (got ${t.TW})`);
}

/**
 * Tiles of a 3x3 convolution computed as a workgroup-memory tiled kernel: `outs` output channels in
 * tiles of `out` (a multiple of 8: each invocation owns 8 channels x 4 pixels), `sums` summed
 * channels staged `sum` at a time; ws holds sum*9*out floats, the input tile sum*(ROWS+2)*(TW+2).
 */
function convTiles(t: ConvTiles, out: number, sum: number, sums: number, limits?: Limits): boolean {
  if (sums < sum) return false;
  const bytes = 4 * (sum * 9 * out + sum * (t.ROWS + 2) * (t.TW + 2));
  return fits(bytes, (out / 8) * t.ROWS * (t.TW / 4), limits);
}

/** conv2d_forward_tiled's tiles for this layer, or null for conv2d_forward. */
export function forwardTiles(ci: number, tuning: Tuning, limits?: Limits): ConvTiles | null {
  if (tuning.convForward !== 'tiled') return null;
  const t = { ...KERNELS.conv2d_forward_tiled.overrides, ...tuning.kernels.conv2d_forward_tiled } as ConvTiles;
  checkTiles('conv2d_forward_tiled', t, 'TCO');
  return convTiles(t, t.TCO, t.TCI, ci, limits) ? t : null;
}

/** conv2d_backward_input_tiled's tiles for this layer, or null for conv2d_backward_input. */
export function inputTiles(co: number, tuning: Tuning, limits?: Limits): ConvTiles | null {
  if (tuning.convInput !== 'tiled') return null;
  const t = {
    ...KERNELS.conv2d_backward_input_tiled.overrides,
    ...tuning.kernels.conv2d_backward_input_tiled,
  } as ConvTiles;
  checkTiles('conv2d_backward_input_tiled', t, 'TCI');
  return convTiles(t, t.TCI, t.TCO, co, limits) ? t : null;
}

/**
 * The subgroup size for conv2d_backward_weight_reduce_subgroup, or 0 for the lanes kernel: the
 * device has subgroups of one fixed size that OUTS divides, and the tuning asks for them always
 * ('subgroup') or where the sums are longer than they are many ('auto': splits >= outputs, since a
 * subgroup spreads each sum over its lanes). On the
 * H200 that is conv1 (4096 slices of 896 sums: 0.068 -> 0.048 ms at batch 2048), not conv2 (128
 * slices of 18,496 sums: 0.013 -> 0.028 ms), bench/results/h200-conv-tiles.txt.
 */
export function reduceSubgroup(tuning: Tuning, subgroupSize: number, splits = 1, outputs = 0): number {
  if (tuning.convReduce === 'lanes' || subgroupSize === 0) return 0;
  if (tuning.convReduce === 'auto' && splits < outputs) return 0;
  const outs = {
    ...KERNELS.conv2d_backward_weight_reduce_subgroup.overrides,
    ...tuning.kernels.conv2d_backward_weight_reduce_subgroup,
  }.OUTS;
  if (outs & (outs - 1)) throw new Error(`tuning conv2d_backward_weight_reduce_subgroup.OUTS must be a power of two`);
  return outs <= subgroupSize ? subgroupSize : 0;
}
