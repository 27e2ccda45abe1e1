// Tuning per adapter: kernel override constants (workgroup sizes) and how many invocations the
// split-K reductions aim for. A CPU rasteriser (SwiftShader) wants few, fat invocations; a real
// GPU wants tens of thousands in flight.
import type { AdapterSummary } from './device.ts';
import type { KernelTuning } from './kernel-cache.ts';
import { KERNELS, type KernelName } from './kernels.ts';

export interface Tuning {
  readonly kernels: KernelTuning;
  /** Invocations a split-K reduction (conv backward-weight) should spread its work over. */
  readonly targetThreads: number;
  /** At most this many split-K slices (the second pass sums each output over them, in LANES lanes). */
  readonly maxSplits: number;
  /** Workgroups for the two-stage gradient-norm reduction. */
  readonly normWorkgroups: number;
  /**
   * The convolution weight-gradient kernel: 'registers' (conv2d_backward_weight: every invocation
   * reads its operands from global memory), 'wide' (conv2d_backward_weight_wide: the same with 8x2
   * channels per invocation instead of 4x1, for CPU rasterisers) or 'tiled'
   * (conv2d_backward_weight_tiled: tiles staged in workgroup memory and shared by a workgroup's
   * invocations).
   */
  readonly convWeight: ConvWeightKernel;
  /**
   * The convolution forward and input-gradient kernels: 'small' (conv2d_forward and
   * conv2d_backward_input: 4 channels x 4 pixels per invocation, for GPUs) or 'wide'
   * (conv2d_forward_wide and conv2d_backward_input_wide: 16 x 16, for CPU rasterisers, where
   * every load is a gather and few, fat invocations win).
   */
  readonly convBlock: ConvBlock;
}

export type ConvWeightKernel = 'registers' | 'wide' | 'tiled';
export type ConvBlock = 'small' | 'wide';

export const SOFTWARE_TUNING: Tuning = {
  kernels: {},
  targetThreads: 256,
  maxSplits: 64,
  normWorkgroups: 8,
  convWeight: 'wide',
  convBlock: 'wide',
};

/**
 * For real GPUs. Chosen by `webddp bench --tuning` sweeps on an NVIDIA H200 (Dawn, Vulkan):
 * convolution workgroups of 32 and split-K aimed at 32768 invocations beat 16/64/128 and
 * 8192/65536/131072 by 10-30% at batch 512 (114k vs 87k images/s with the first guess); fc1's
 * forward split 32 ways inside 4x2 workgroups took it from 0.85 to 0.13 ms (144k images/s), and
 * capping the slices at 256 (conv1's second pass sums them serially) with 65536 invocations was
 * the steadiest across batch sizes (bench/results/h200-tuning-sweep.txt; runs vary by +-15%).
 * The tiled weight gradient (64x16 channels, 2x16 pixels; 12.6 KB of workgroup memory) took conv2's
 * from 1.31 to 0.26 ms at batch 512 and the step from about 120k to 180k images/s
 * (bench/results/h200-tiled-conv-weight.txt). conv1's weight gradient (3x32 channels: 24
 * invocations per slice) then had too few invocations at 256 slices; 4096 slices summed by 16
 * lanes per output took it from 1.51 to 0.52 ms at batch 2048 and the step to about 190-210k
 * images/s at batch 512 (bench/results/h200-split-k-lanes.txt). Splitting the linear weight
 * gradients' batch sums 8 ways inside 8x2 workgroups took fc1's from 0.79-0.85 to 0.39-0.46 ms
 * and fc2's from 0.46 to 0.07 ms at batch 2048 (bench/results/h200-linear-nsplit.txt).
 */
export const GPU_TUNING: Tuning = {
  kernels: {
    conv2d_forward: { WG_X: 32, WG_Y: 1 },
    conv2d_backward_input: { WG_X: 32, WG_Y: 1 },
    conv2d_backward_weight: { WG_X: 32 },
    conv2d_backward_weight_reduce: { OUTS: 16, LANES: 16 },
    linear_forward: { WG_X: 4, WG_Y: 2, KSPLIT: 32 },
    linear_backward_input: { WG_X: 16, WG_Y: 4 },
    linear_backward_weight: { WG_X: 8, WG_Y: 2, NSPLIT: 8 },
    maxpool2d_forward: { WG: 256 },
    maxpool2d_backward: { WG: 256 },
    sgd_step: { WG: 256 },
    adam_step: { WG: 256 },
    scale: { WG: 256 },
    add_scaled: { WG: 256 },
    normalize_input: { WG: 256 },
    softmax_xent_forward: { WG: 256 },
    softmax_xent_backward: { WG: 256 },
    grad_norm: { WG: 256 },
  },
  targetThreads: 65536,
  maxSplits: 4096,
  normWorkgroups: 256,
  convWeight: 'tiled',
  convBlock: 'small',
};

export function tuningFor(adapter: AdapterSummary): Tuning {
  return adapter.fallback ? SOFTWARE_TUNING : GPU_TUNING;
}

/**
 * A Tuning from JSON (the CLI's --tuning): {"kernels": {"conv2d_forward": {"WG_X": 128}},
 * "targetThreads": 65536, "normWorkgroups": 256, "convWeight": "registers", "convBlock": "wide"},
 * over `base` for the fields it omits.
 */
export function parseTuning(json: string, base: Tuning): Tuning {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new Error(`tuning is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  const o = v;
  if (!isObject(o)) throw new Error('tuning must be a JSON object');
  const kernels = o.kernels ?? {};
  if (!isObject(kernels)) throw new Error('tuning kernels must be an object of {kernel: {CONSTANT: value}}');
  for (const [k, ov] of Object.entries(kernels)) {
    if (!(k in KERNELS)) throw new Error(`tuning names no kernel '${k}' (kernels: ${Object.keys(KERNELS).join(', ')})`);
    if (!isObject(ov)) throw new Error(`tuning ${k} must be an object of {CONSTANT: value}`);
    const known = KERNELS[k as KernelName].overrides;
    for (const [c, n] of Object.entries(ov)) {
      if (!(c in known))
        throw new Error(
          `tuning ${k}.${c}: ${k} has no override constant '${c}' (it has ${Object.keys(known).join(', ')})`,
        );
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
        throw new Error(`tuning ${k}.${c} must be a positive integer (got ${JSON.stringify(n)})`);
    }
  }
  const num = (k: string, d: number) => {
    const n = o[k] ?? d;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      throw new Error(`tuning ${k} must be a positive integer`);
    return n;
  };
  const convWeight = o.convWeight ?? base.convWeight;
  if (convWeight !== 'registers' && convWeight !== 'wide' && convWeight !== 'tiled')
    throw new Error(`tuning convWeight must be "registers", "wide" or "tiled" (got ${JSON.stringify(convWeight)})`);
  const convBlock = o.convBlock ?? base.convBlock;
  if (convBlock !== 'small' && convBlock !== 'wide')
    throw new Error(`tuning convBlock must be "small" or "wide" (got ${JSON.stringify(convBlock)})`);
  return {
    kernels: { ...base.kernels, ...(kernels as KernelTuning) },
    targetThreads: num('targetThreads', base.targetThreads),
    maxSplits: num('maxSplits', base.maxSplits),
    normWorkgroups: num('normWorkgroups', base.normWorkgroups),
    convWeight,
    convBlock,
  };
}
