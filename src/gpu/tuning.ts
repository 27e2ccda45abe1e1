// Tuning per adapter: kernel override constants (workgroup sizes) and how many invocations the
// split-K reductions aim for. A CPU rasteriser (SwiftShader) wants few, fat invocations; a real
// GPU wants tens of thousands in flight.
import type { AdapterSummary } from './device.ts';
import type { KernelTuning } from './kernel-cache.ts';
import { KERNELS, type KernelName } from './kernels.ts';
import { readJson } from '../input/json.ts';

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
  readonly convWeight: ConvKernel;
  /**
   * conv2d_forward ('registers': 4 channels x 4 pixels per invocation), conv2d_forward_tiled
   * ('tiled': workgroup-memory tiles, for GPUs, where the layer's tiles fit) or conv2d_forward_wide
   * ('wide': 16 x 16 per invocation, for CPU rasterisers, where every load is a gather and few,
   * fat invocations win).
   */
  readonly convForward: ConvKernel;
  /** The same three choices for the input gradient (conv2d_backward_input{,_tiled,_wide}). */
  readonly convInput: ConvKernel;
  /**
   * How the weight gradient's split-K slices are summed: 'lanes' (conv2d_backward_weight_reduce,
   * lanes added in workgroup memory), 'subgroup' (conv2d_backward_weight_reduce_subgroup, where
   * the device has the `subgroups` feature with one subgroup size; else 'lanes'), or 'auto' (the
   * subgroup kernel for layers with at least as many slices as sums, conv2d-tiles.ts).
   */
  readonly convReduce: ConvReduceKernel;
  /**
   * The linear forward of layers with long sums (at least 256 inputs: fc1): 'registers'
   * (linear_forward, split-K inside a workgroup) or 'tiled' (linear_forward_tiled: workgroup-memory
   * tiles, split-K over workgroups, then linear_forward_reduce).
   */
  readonly linearForward: LinearKernel;
  /**
   * The same two choices for those layers' weight gradient: linear_backward_weight (split-K inside a
   * workgroup) or linear_backward_weight_tiled (tiles, split-K over workgroups, then
   * conv2d_backward_weight_reduce, whose slice layout it shares).
   */
  readonly linearWeight: LinearKernel;
  /**
   * fp16 runs on a device with shader-f16 and f16 x f16 -> f32 subgroup matrices of 16x16x16
   * (Gpu.halfMatrix): which products of the layers with long sums (conv2, fc1) use the `*_sgmat`
   * kernels (tensor cores, float32 accumulation) instead of the float32-arithmetic ones. Other
   * devices and runs ignore it.
   */
  readonly halfMatrix: readonly HalfMatrixUse[];
}

/** The layer products that have a subgroup-matrix kernel (conv2d_*_sgmat, linear_*_sgmat). */
export const HALF_MATRIX_USES = [
  'conv-forward',
  'conv-input',
  'conv-weight',
  'linear-forward',
  'linear-weight',
] as const;
export type HalfMatrixUse = (typeof HALF_MATRIX_USES)[number];

export type ConvKernel = 'registers' | 'tiled' | 'wide';
export type ConvReduceKernel = 'lanes' | 'subgroup' | 'auto';
export type LinearKernel = 'registers' | 'tiled';

export const SOFTWARE_TUNING: Tuning = {
  kernels: {},
  targetThreads: 256,
  maxSplits: 64,
  normWorkgroups: 8,
  convWeight: 'wide',
  convForward: 'wide',
  convInput: 'wide',
  convReduce: 'lanes',
  linearForward: 'registers',
  linearWeight: 'registers',
  halfMatrix: [],
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
 * conv2's tiled forward (32 output channels x a 16x16 image per workgroup, 4 input channels staged
 * at a time) and input gradient (32 x 16x16, 4 output channels at a time) took them from 1.10 to
 * 0.79 ms and from 1.27 to 0.80 ms at batch 2048 (17.5 -> 24.4 and 15.3 -> 24.2 TFLOP/s), out of 18
 * tile shapes swept; the subgroup reduce for layers with long sums ('auto': conv1) took conv1's
 * from 0.068 to 0.048 ms; batch 2048 went from 231-254k to 288-290k images/s
 * (bench/results/h200-conv-tiles.txt). Nine tile shapes of conv2's weight gradient: 64 x 32
 * channels and 4 x 16 pixels (29.8 KB, 512 invocations) took it from 1.14 to 0.92 ms at batch 2048
 * (17.0 -> 21.0 TFLOP/s) and from 0.31 to 0.26 ms at 512; a device whose limits do not hold it uses
 * the registry's 64 x 16 x 2 x 16 (bench/results/h200-2026-12-04-conv-weight-sweep.txt). fc1's
 * forward and weight gradient through workgroup-memory tiles with split-K over workgroups
 * (linear_forward_tiled, linear_backward_weight_tiled) took them from 0.38 to 0.15 ms and from 0.43
 * to 0.15 ms (+ 0.05 for its reduce) at batch 2048, 5 -> 14 TFLOP/s, the kernels of a step from
 * 4.9 to 4.45 ms (bench/results/h200-2026-12-04-linear-tiled.txt).
 * fp16 runs with f16 subgroup matrices (halfMatrix): only fc1's forward, the one subgroup-matrix
 * kernel measured faster than its float32-arithmetic form on the H200 (0.101 against 0.137 ms at
 * batch 2048, 0.020 against 0.051 at 128); conv2's three (1.02, 1.06, 0.98 ms against 0.80, 0.80,
 * 0.91) and fc1's weight gradient (0.22 + 0.04 against 0.15 + 0.01) are slower: they stage and
 * convert every operand through workgroup memory, 18-21 TFLOP/s against the 66-74 of a plain f16
 * subgroup-matrix matmul (bench/results/h200-2026-12-04-precision*.txt).
 */
export const GPU_TUNING: Tuning = {
  kernels: {
    conv2d_forward: { WG_X: 32, WG_Y: 1 },
    conv2d_backward_input: { WG_X: 32, WG_Y: 1 },
    conv2d_backward_weight: { WG_X: 32 },
    conv2d_backward_weight_reduce: { OUTS: 16, LANES: 16 },
    conv2d_forward_tiled: { TCO: 32, TCI: 4, ROWS: 16, TW: 16 },
    conv2d_backward_input_tiled: { TCI: 32, TCO: 4, ROWS: 16, TW: 16 },
    conv2d_backward_weight_reduce_subgroup: { OUTS: 1 },
    conv2d_backward_weight_tiled: { TCO: 64, TCI: 32, ROWS: 4, TW: 16 },
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
  convForward: 'tiled',
  convInput: 'tiled',
  convReduce: 'auto',
  linearForward: 'tiled',
  linearWeight: 'tiled',
  halfMatrix: ['linear-forward'],
};

function halfMatrixUses(v: unknown): readonly HalfMatrixUse[] {
  const ok = (x: unknown): x is HalfMatrixUse => HALF_MATRIX_USES.includes(x as HalfMatrixUse);
  if (!Array.isArray(v) || !v.every(ok))
    throw new Error(
      `tuning halfMatrix must be a list of ${HALF_MATRIX_USES.map((u) => `"${u}"`).join(', ')} (got ${JSON.stringify(v)})`,
    );
  return [...new Set(v)];
}

export function tuningFor(adapter: AdapterSummary): Tuning {
  return adapter.fallback ? SOFTWARE_TUNING : GPU_TUNING;
}

/**
 * A Tuning from JSON (the CLI's --tuning): {"kernels": {"conv2d_forward": {"WG_X": 128}},
 * "targetThreads": 65536, "normWorkgroups": 256, "convWeight": "registers", "convForward": "tiled",
 * "convInput": "tiled", "convReduce": "subgroup", "linearForward": "tiled", "linearWeight": "tiled",
 * "halfMatrix": ["conv-forward", "linear-forward"]}, over `base` for the fields it omits.
 */
export function parseTuning(json: string, base: Tuning): Tuning {
  const v = readJson(json, (issue) => new Error(`tuning is not JSON: ${issue}`));
  const isObject = (x: unknown): x is Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x);
  const o = v;
  if (!isObject(o)) throw new Error('tuning must be a JSON object');
  const fields = [
    'kernels',
    'targetThreads',
    'maxSplits',
    'normWorkgroups',
    'convWeight',
    'convForward',
    'convInput',
    'convReduce',
    'linearForward',
    'linearWeight',
    'halfMatrix',
  ];
  for (const k of Object.keys(o))
    if (!fields.includes(k)) throw new Error(`tuning has no setting '${k}' (settings: ${fields.join(', ')})`);
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
  const choice = <T extends string>(k: string, d: T, allowed: readonly T[]): T => {
    const c = o[k] ?? d;
    if (!allowed.includes(c as T))
      throw new Error(`tuning ${k} must be ${allowed.map((a) => `"${a}"`).join(' or ')} (got ${JSON.stringify(c)})`);
    return c as T;
  };
  const conv = ['registers', 'tiled', 'wide'] as const;
  return {
    kernels: { ...base.kernels, ...(kernels as KernelTuning) },
    targetThreads: num('targetThreads', base.targetThreads),
    maxSplits: num('maxSplits', base.maxSplits),
    normWorkgroups: num('normWorkgroups', base.normWorkgroups),
    convWeight: choice('convWeight', base.convWeight, conv),
    convForward: choice('convForward', base.convForward, conv),
    convInput: choice('convInput', base.convInput, conv),
    convReduce: choice('convReduce', base.convReduce, ['lanes', 'subgroup', 'auto'] as const),
    linearForward: choice('linearForward', base.linearForward, ['registers', 'tiled'] as const),
    linearWeight: choice('linearWeight', base.linearWeight, ['registers', 'tiled'] as const),
    halfMatrix: halfMatrixUses(o.halfMatrix ?? base.halfMatrix),
  };
}
