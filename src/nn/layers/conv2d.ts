// Conv2d(ci, co, 3, padding=1) with the bias and (optionally) the ReLU fused into the forward.
// Forward and backward side by side; every tensor is NCHW.
import { halvesOf, isHalfBuffer } from '../../gpu/half-acts.ts';
import { cdiv, makeOp, type Op } from '../../gpu/op.ts';
import type { Operand } from '../../gpu/operand.ts';
import type { Tuning } from '../../gpu/tuning.ts';
import {
  ONE_RANK,
  rankRows,
  type BackwardIO,
  type BuildContext,
  type Layer,
  type RankRows,
  type Shape,
} from '../layer.ts';
import type { ParamSpec } from '../spec.ts';
import {
  forwardTiles,
  inputTiles,
  reduceSubgroup,
  weightTileChoices,
  weightTiles,
  type WeightTiles,
} from './conv2d-tiles.ts';
import { MATRIX_TILE, useHalfMatrix } from './linear-tiles.ts';

export class Conv2dLayer implements Layer {
  readonly inShape: Shape;
  readonly outShape: Shape;
  readonly params: readonly ParamSpec[];

  constructor(
    readonly name: string,
    private readonly weight: ParamSpec, // [co, ci, 3, 3]
    private readonly bias: ParamSpec, // [co]
    private readonly h: number,
    private readonly w: number,
    private readonly relu: boolean,
  ) {
    const [co, ci, kh, kw] = weight.shape;
    if (co === undefined || ci === undefined || kh !== 3 || kw !== 3)
      throw new Error(`${name}: only 3x3 convolutions are supported (got [${weight.shape.join(', ')}])`);
    this.inShape = [ci, h, w];
    this.outShape = [co, h, w];
    this.params = [weight, bias];
  }

  private get ci(): number {
    return this.inShape[0] ?? 0;
  }
  private get co(): number {
    return this.outShape[0] ?? 0;
  }

  /**
   * The tiles of the weight gradient's tiled kernel, or null for the register kernel. Tiles pay
   * where the tuning asks for them, the layer fills a workgroup's input channels (conv1's 3 do
   * not: measured slower on the H200) and the device can hold them (workgroup memory, size).
   */
  tiles(tuning: Tuning, limits?: GPUSupportedLimits): WeightTiles | null {
    return weightTiles(this.ci, tuning, limits);
  }

  /**
   * Split-K factor of the weight gradient: enough slices of the reduction (image rows for the
   * register kernel, pixel tiles for the tiled one) to fill the device.
   */
  splits(batch: number, tuning: Tuning, tiles: WeightTiles | null): number {
    let units = batch * this.h;
    let perSlice = tuning.convWeight === 'wide' ? cdiv(this.ci, 2) * cdiv(this.co, 8) : this.ci * cdiv(this.co, 4);
    if (tiles) {
      units = batch * cdiv(this.h, tiles.ROWS) * cdiv(this.w, tiles.TW);
      perSlice = cdiv(this.co, tiles.TCO) * cdiv(this.ci, tiles.TCI) * (tiles.TCO / 4) * tiles.TCI;
    }
    return Math.max(1, Math.min(units, tuning.maxSplits, cdiv(tuning.targetThreads, perSlice)));
  }

  /** Room for the split-K slices of any kernel (which one runs depends on the device): the weight gradient's over `rowsOf` rows. */
  workspaceBytes(batch: number, tuning: Tuning, rowsOf = batch): number {
    const tiled = weightTileChoices(this.ci, tuning).map((t) => this.splits(rowsOf, tuning, t));
    const matrix = useHalfMatrix('conv-weight', this.ci * 9, tuning, 'f16', true)
      ? [this.matrixSplits(rowsOf, tuning)]
      : [];
    const splits = Math.max(this.splits(rowsOf, tuning, null), ...tiled, ...matrix);
    // every rank's slices (RankRows)
    return Math.ceil(batch / rowsOf) * splits * this.co * (this.ci * 9 + 1) * 4;
  }

  /**
   * Whether this layer computes in f16 subgroup matrices (fp16 runs on a device with them, layers
   * whose sums are long enough: conv2's 288, not conv1's 27).
   */
  private halfMatrix(ctx: BuildContext, use: 'conv-forward' | 'conv-input' | 'conv-weight'): boolean {
    return useHalfMatrix(use, this.ci * 9, ctx.tuning, ctx.paramStorage, ctx.gpu.halfMatrix);
  }

  /** conv2d_backward_weight_sgmat's split-K slices over the pixels: at least 512 pixels each, at most 256. */
  private matrixSplits(batch: number, tuning: Tuning): number {
    return Math.max(1, Math.min(256, tuning.maxSplits, cdiv(batch * this.h * this.w, 512)));
  }

  // x [N, ci, h, w] -> y [N, co, h, w] = relu?(conv(x, weight) + bias)
  async forward(ctx: BuildContext, x: Operand, y: Operand, batch: number): Promise<Op[]> {
    const shape = {
      n: batch,
      ci: this.ci,
      co: this.co,
      h: this.h,
      w: this.w,
      w_off: ctx.paramOffset(this.weight),
      b_off: ctx.paramOffset(this.bias),
      relu: this.relu ? 1 : 0,
    };
    const operands = { x, theta: ctx.params, y };
    const label = `${this.name}.forward`;
    // fp16 output: each invocation stores pairs of pixels, which are whole words only in rows of even length.
    if (isHalfBuffer(y) && this.w % 2 !== 0)
      throw new Error(`${this.name}: an fp16 activation output needs an even image width (got ${this.w})`);
    const halves = halvesOf({ x, y });
    if (this.halfMatrix(ctx, 'conv-forward')) {
      if ((this.h * this.w) % 2 !== 0)
        throw new Error(
          `${this.name}: the f16 subgroup-matrix forward needs an even pixel count (got ${this.h}x${this.w})`,
        );
      const g = ctx.gpu;
      const k = await g.kernels.get('conv2d_forward_sgmat', { SG: g.subgroupSize }, ctx.paramStorage, halves);
      const wg = [cdiv(batch * this.h * this.w, MATRIX_TILE), cdiv(this.co, MATRIX_TILE), 1] as const;
      return [makeOp(g, k, label, shape, operands, wg)];
    }
    const t = forwardTiles(this.ci, ctx.tuning, ctx.gpu.device.limits);
    if (t) {
      const k = await ctx.gpu.kernels.get('conv2d_forward_tiled', { ...t }, ctx.paramStorage, halves);
      const pixelTiles = cdiv(this.h, t.ROWS) * cdiv(this.w, t.TW);
      return [makeOp(ctx.gpu, k, label, shape, operands, [pixelTiles, cdiv(this.co, t.TCO), batch])];
    }
    const wide = ctx.tuning.convForward === 'wide';
    const k = await ctx.gpu.kernels.get(wide ? 'conv2d_forward_wide' : 'conv2d_forward', {}, ctx.paramStorage, halves);
    const { WG_X = 64, WG_Y = 1 } = k.overrides;
    const b = wide ? 16 : 4; // channels and pixels per invocation
    const wg = [cdiv(this.h * cdiv(this.w, b), WG_X), cdiv(cdiv(this.co, b), WG_Y), batch] as const;
    return [makeOp(ctx.gpu, k, label, shape, operands, wg)];
  }

  // dy [N, co, h, w] (pre-activation gradient) -> dx [N, ci, h, w]
  async backwardInput(ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]> {
    return io.dx ? [await this.inputOp(ctx, io.dy, io.dx, batch)] : [];
  }

  // dweight, dbias += (split-K, then reduce); with ranks, every rank's slices over its own rows
  // (the slice boundaries s * n / S fall on the ranks' boundaries: rank r's S slices of its rows are
  // slices r*S .. r*S+S-1 of all R*S), each rank's reduced into its own gradients.
  async backwardWeight(ctx: BuildContext, io: BackwardIO, batch: number, ranks = ONE_RANK): Promise<Op[]> {
    const ops: Op[] = [];
    const g = ctx.gpu;
    const rows = rankRows(this.name, batch, ranks);
    const R = ranks.count;
    if (this.halfMatrix(ctx, 'conv-weight')) {
      const splits = this.matrixSplits(rows, ctx.tuning);
      const shape = { n: batch, ci: this.ci, co: this.co, h: this.h, w: this.w, splits: R * splits };
      const k = await g.kernels.get(
        'conv2d_backward_weight_sgmat',
        { SG: g.subgroupSize },
        'f32',
        halvesOf({ x: io.x }),
      );
      const wg = [cdiv(this.co, MATRIX_TILE), cdiv(this.ci * 9 + 1, MATRIX_TILE), R * splits] as const;
      ops.push(makeOp(g, k, `${this.name}.backward_weight`, shape, { dy: io.dy, x: io.x, partial: ctx.workspace }, wg));
      ops.push(await this.reduceOp(ctx, splits, ranks));
      return ops;
    }
    const tiles = this.tiles(ctx.tuning, g.device.limits);
    const splits = this.splits(rows, ctx.tuning, tiles);
    const shape = { n: batch, ci: this.ci, co: this.co, h: this.h, w: this.w, splits: R * splits };
    const operands = { dy: io.dy, x: io.x, partial: ctx.workspace };
    const halves = halvesOf({ x: io.x });
    if (tiles) {
      const kt = await g.kernels.get('conv2d_backward_weight_tiled', { ...tiles }, 'f32', halves);
      ops.push(
        makeOp(g, kt, `${this.name}.backward_weight`, shape, operands, [
          cdiv(this.co, tiles.TCO) * cdiv(this.ci, tiles.TCI),
          1,
          R * splits,
        ]),
      );
    } else if (ctx.tuning.convWeight === 'wide') {
      const kw = await g.kernels.get('conv2d_backward_weight_wide', {}, 'f32', halves);
      ops.push(
        makeOp(g, kw, `${this.name}.backward_weight`, shape, operands, [
          cdiv(cdiv(this.ci, 2) * cdiv(this.co, 8), kw.overrides.WG_X ?? 16),
          1,
          R * splits,
        ]),
      );
    } else {
      const kw = await g.kernels.get('conv2d_backward_weight', {}, 'f32', halves);
      ops.push(
        makeOp(g, kw, `${this.name}.backward_weight`, shape, operands, [
          cdiv(this.ci * cdiv(this.co, 4), kw.overrides.WG_X ?? 64),
          1,
          R * splits,
        ]),
      );
    }
    ops.push(await this.reduceOp(ctx, splits, ranks));
    return ops;
  }

  // dy [N, co, h, w] -> dx [N, ci, h, w], through the tiled kernel where it fits.
  private async inputOp(ctx: BuildContext, dy: Operand, dx: Operand, batch: number): Promise<Op> {
    const g = ctx.gpu;
    const shape = { n: batch, ci: this.ci, co: this.co, h: this.h, w: this.w, w_off: ctx.paramOffset(this.weight) };
    const label = `${this.name}.backward_input`;
    if (this.halfMatrix(ctx, 'conv-input')) {
      const k = await g.kernels.get('conv2d_backward_input_sgmat', { SG: g.subgroupSize }, ctx.paramStorage);
      const wg = [cdiv(batch * this.h * this.w, MATRIX_TILE), cdiv(this.ci, MATRIX_TILE / 2), 1] as const;
      return makeOp(g, k, label, shape, { dy, theta: ctx.params, dx }, wg);
    }
    const t = inputTiles(this.co, ctx.tuning, g.device.limits);
    if (t) {
      const k = await g.kernels.get('conv2d_backward_input_tiled', { ...t }, ctx.paramStorage);
      const pixelTiles = cdiv(this.h, t.ROWS) * cdiv(this.w, t.TW);
      return makeOp(g, k, label, shape, { dy, theta: ctx.params, dx }, [pixelTiles, cdiv(this.ci, t.TCI), batch]);
    }
    const wide = ctx.tuning.convInput === 'wide';
    const k = await g.kernels.get(wide ? 'conv2d_backward_input_wide' : 'conv2d_backward_input', {}, ctx.paramStorage);
    const { WG_X = 64, WG_Y = 1 } = k.overrides;
    const b = wide ? 16 : 4;
    const wg = [cdiv(this.h * cdiv(this.w, b), WG_X), cdiv(cdiv(this.ci, b), WG_Y), batch] as const;
    return makeOp(g, k, label, shape, { dy, theta: ctx.params, dx }, wg);
  }

  // The split-K slices summed into the weight and bias gradients (subgroup shuffles where asked, had and
  // the sums are long: reduceSubgroup), each rank's `splits` into its own.
  private async reduceOp(ctx: BuildContext, splits: number, ranks: RankRows): Promise<Op> {
    const g = ctx.gpu;
    const shape = {
      co: this.co,
      k: this.ci * 9,
      splits,
      w_off: ctx.gradOffset(this.weight),
      b_off: ctx.gradOffset(this.bias),
      rank_grad: ranks.gradStride,
    };
    const operands = { partial: ctx.workspace, grad: ctx.grads };
    const label = `${this.name}.backward_weight_reduce`;
    const outputs = this.co * (this.ci * 9 + 1);
    const sg = reduceSubgroup(ctx.tuning, g.subgroupSize, splits, outputs);
    if (sg > 0) {
      const k = await g.kernels.get('conv2d_backward_weight_reduce_subgroup', { SG: sg });
      return makeOp(g, k, label, shape, operands, [cdiv(outputs, k.overrides.OUTS ?? 4), ranks.count, 1]);
    }
    const k = await g.kernels.get('conv2d_backward_weight_reduce');
    return makeOp(g, k, label, shape, operands, [cdiv(outputs, k.overrides.OUTS ?? 64), ranks.count, 1]);
  }
}
