// Tuning per adapter: kernel override constants (workgroup sizes) and how many invocations the
// split-K reductions aim for. A CPU rasteriser (SwiftShader) wants few, fat invocations; a real
// GPU wants tens of thousands in flight.
import type { AdapterSummary } from './device.ts';
import type { KernelTuning } from './kernel-cache.ts';

export interface Tuning {
  readonly kernels: KernelTuning;
  /** Invocations a split-K reduction (conv backward-weight) should spread its work over. */
  readonly targetThreads: number;
  /** Workgroups for the two-stage gradient-norm reduction. */
  readonly normWorkgroups: number;
}

export const SOFTWARE_TUNING: Tuning = { kernels: {}, targetThreads: 256, normWorkgroups: 8 };

export const GPU_TUNING: Tuning = {
  kernels: {
    conv2d_forward: { WG_X: 64, WG_Y: 1 },
    conv2d_backward_input: { WG_X: 64, WG_Y: 1 },
    conv2d_backward_weight: { WG_X: 64 },
    linear_forward: { WG_X: 16, WG_Y: 4 },
    linear_backward_input: { WG_X: 16, WG_Y: 4 },
    linear_backward_weight: { WG_X: 16, WG_Y: 4 },
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
  normWorkgroups: 256,
};

export function tuningFor(adapter: AdapterSummary): Tuning {
  return adapter.fallback ? SOFTWARE_TUNING : GPU_TUNING;
}
