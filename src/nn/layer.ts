// What every layer of the model provides: its parameters, per-sample shapes, and the prepared
// dispatches (Ops) of its forward and backward for a batch size. Layers record nothing themselves;
// the step records their Ops into the caller's encoder, in order.
import type { Gpu } from '../gpu/device.ts';
import type { ParamStorage } from '../gpu/half-params.ts';
import type { Op } from '../gpu/op.ts';
import type { Operand } from '../gpu/operand.ts';
import type { Tuning } from '../gpu/tuning.ts';
import type { ParamSpec } from './spec.ts';

/** Per-sample shape: [C, H, W] for images, [F] for features. */
export type Shape = readonly number[];

export interface BuildContext {
  readonly gpu: Gpu;
  /** The flat parameter arena (state_dict order), or ZeRO-3's working buffer. */
  readonly params: GPUBuffer;
  /** A parameter's element offset in `params`: its arena offset, unless parameters live elsewhere (ZeRO-3). */
  paramOffset(p: ParamSpec): number;
  /** How `params` stores them: float32, or packed halves (fp16 mixed precision; src/gpu/half-params.ts). */
  readonly paramStorage: ParamStorage;
  /** Where backward kernels accumulate parameter gradients (+=). */
  readonly grads: GPUBuffer;
  /** A parameter's element offset in `grads`: its arena offset, unless gradients live elsewhere (ZeRO-2). */
  gradOffset(p: ParamSpec): number;
  readonly tuning: Tuning;
  /** Scratch shared by all layers (split-K partial sums); at least max(workspaceBytes) bytes. */
  readonly workspace: GPUBuffer;
}

export interface BackwardIO {
  /** The forward input [N, ...inShape]. */
  readonly x: Operand;
  /** The forward output [N, ...outShape]. */
  readonly y: Operand;
  /** The gradient of the output (of the pre-activation where the layer fuses a ReLU). */
  readonly dy: Operand;
  /** Where to write the input gradient, or null when nobody needs it (the first layer). */
  readonly dx: Operand | null;
}

/**
 * Ranks sharing a device whose parameter gradients one call computes (the batched step,
 * train/rank-batch.ts): the batch is `count` ranks' rows, an equal share each, in rank order. Each
 * rank's gradients are the sums over its own rows alone, with the split-K a rank of that many rows
 * chooses (the bits a device of its own gives), written `gradStride` floats after the previous
 * rank's.
 */
export interface RankRows {
  readonly count: number;
  readonly gradStride: number;
}

/** One rank: the gradients of the whole batch. */
export const ONE_RANK: RankRows = { count: 1, gradStride: 0 };

/** Each rank's rows of a batch of `batch` (an equal share, else an error naming `layer`). */
export function rankRows(layer: string, batch: number, ranks: RankRows): number {
  const rows = batch / ranks.count;
  if (!Number.isInteger(rows) || rows < 1)
    throw new Error(`${layer}: a batch of ${batch} is not ${ranks.count} equal shares of rows`);
  return rows;
}

export interface Layer {
  readonly name: string;
  readonly inShape: Shape;
  readonly outShape: Shape;
  readonly params: readonly ParamSpec[];
  /**
   * Scratch bytes the layer needs at this batch size: its forward over `batch` rows with split-K
   * chosen for `rowsOf` (see forward), its parameter gradients over `batch` rows in ranks of
   * `rowsOf` (see RankRows).
   */
  workspaceBytes(batch: number, tuning: Tuning, rowsOf?: number): number;
  /**
   * The forward of `batch` samples. `rowsOf`: the batch the split-K choices are made for (ranks
   * sharing a device run one forward over every rank's rows with a rank's choices, so that each
   * sample's sums are those of a rank alone); default `batch`.
   */
  forward(ctx: BuildContext, x: Operand, y: Operand, batch: number, rowsOf?: number): Promise<Op[]>;
  /** The input gradient's Ops (none for the first layer, io.dx null): each sample's own. */
  backwardInput(ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]>;
  /**
   * The parameters' gradients (+= over the batch), none for a layer without parameters; with
   * `ranks`, each rank's over its rows (RankRows).
   */
  backwardWeight(ctx: BuildContext, io: BackwardIO, batch: number, ranks?: RankRows): Promise<Op[]>;
}

/** A layer's whole backward: its input gradient, then its parameters' gradients. */
export async function layerBackward(layer: Layer, ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]> {
  return [...(await layer.backwardInput(ctx, io, batch)), ...(await layer.backwardWeight(ctx, io, batch))];
}

export function numel(shape: Shape): number {
  return shape.reduce((a, b) => a * b, 1);
}
