// ZeRO's per-rank model-state memory (Rajbhandari et al., "ZeRO: Memory Optimizations Toward
// Training Trillion Parameter Models", SC'20, section 5 and figure 1): parameters, gradients and
// optimizer state for a model of P parameters on W data-parallel ranks at stage 0 (DDP) to 3.
// Mixed precision (DeepSpeed's fp16 or bf16: the same bytes) keeps 16-bit parameters and gradients (2 bytes each) and K
// bytes of optimizer state per parameter: the fp32 master weights plus the optimizer's buffers
// (Adam: K = 4 + 4 + 4 = 12). Plain fp32 keeps 4-byte parameters and gradients and only the
// optimizer's buffers (Adam: 8). Stage 1 divides the optimizer state by W, stage 2 also the
// gradients, stage 3 also the parameters. Activations and working buffers are not model states and
// are not counted (the paper leaves them out as well). Pure arithmetic: no GPU, no DOM.

import type { Precision, ZeroStage } from '../mode.ts';

export type { Precision, ZeroStage } from '../mode.ts';
/** The optimizer's buffers per parameter: Adam/AdamW two moments, SGD with momentum one, plain SGD none. */
export type OptimizerKind = 'adam' | 'sgd-momentum' | 'sgd';

export interface ModelStates {
  /** Bytes per rank. */
  readonly parameters: number;
  readonly gradients: number;
  readonly optimizer: number;
  readonly total: number;
}

/** Optimizer buffers per parameter, in fp32 values. */
const BUFFERS: Record<OptimizerKind, number> = { adam: 2, 'sgd-momentum': 1, sgd: 0 };

/** K, the optimizer-state bytes per parameter: fp32 buffers, plus the fp32 master copy under mixed precision. */
export function optimizerBytesPerParam(optimizer: OptimizerKind, precision: Precision): number {
  return 4 * BUFFERS[optimizer] + (precision === 'fp32' ? 0 : 4);
}

/**
 * Per-rank bytes of each model state. A partitioned state is split into W pieces of ceil(P/W)
 * elements (the largest piece, as webddp and DeepSpeed pad the flat buffer to a multiple of W).
 */
export function zeroModelStates(
  params: number,
  world: number,
  stage: ZeroStage,
  precision: Precision,
  optimizer: OptimizerKind,
): ModelStates {
  if (!(Number.isFinite(params) && params >= 0)) throw new RangeError(`parameters must be >= 0 (got ${params})`);
  if (!(Number.isInteger(world) && world >= 1))
    throw new RangeError(`ranks must be a whole number >= 1 (got ${world})`);
  const shard = Math.ceil(params / world);
  const width = precision === 'fp32' ? 4 : 2;
  const k = optimizerBytesPerParam(optimizer, precision);
  const parameters = width * (stage >= 3 ? shard : params);
  const gradients = width * (stage >= 2 ? shard : params);
  const optimizerBytes = k * (stage >= 1 ? shard : params);
  return { parameters, gradients, optimizer: optimizerBytes, total: parameters + gradients + optimizerBytes };
}

const SUFFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 };

/** "7B" -> 7e9, "1.3e9", "350M", "545098": a parameter count, or null when the text is not one. */
export function parseParamCount(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*([kmbgt]?)\s*$/i.exec(text);
  if (!m) return null;
  const n = Number(m[1]) * (SUFFIX[(m[2] ?? '').toLowerCase()] ?? NaN);
  return Number.isFinite(n) && n > 0 ? Math.round(n) : null;
}
