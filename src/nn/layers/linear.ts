// Linear(i, o) with the bias and (optionally) the ReLU fused into the forward; forward and backward
// side by side. With maskInputGrad the layer's input is a ReLU output, and the input gradient is
// written already masked (the previous layer's ReLU backward, fused). Layers with long sums (fc1)
// take the tiled kernels where the tuning asks for them (linear-tiles.ts): split-K partial sums in
// the shared workspace, then a reduce.
import { halvesOf, isHalfBuffer } from '../../gpu/half-acts.ts';
import { cdiv, grid1d, makeOp, type Op } from '../../gpu/op.ts';
import { sliceOf, type Operand } from '../../gpu/operand.ts';
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
  forwardSplits,
  forwardTiles,
  MATRIX_TILE,
  matrixForwardSplits,
  matrixWeightSplits,
  useHalfMatrix,
  WEIGHT_REDUCE,
  weightSplits,
  weightTiles,
  type ForwardTiles,
  type WeightTiles,
} from './linear-tiles.ts';

export class LinearLayer implements Layer {
  readonly inShape: Shape;
  readonly outShape: Shape;
  readonly params: readonly ParamSpec[];

  constructor(
    readonly name: string,
    readonly weight: ParamSpec, // [o, i]
    readonly bias: ParamSpec, // [o]
    readonly relu: boolean,
    readonly maskInputGrad: boolean,
  ) {
    const [o, i] = weight.shape;
    if (o === undefined || i === undefined || weight.shape.length !== 2)
      throw new Error(`${name}: weight must be [out, in]`);
    this.inShape = [i];
    this.outShape = [o];
    this.params = [weight, bias];
  }

  private get i(): number {
    return this.inShape[0] ?? 0;
  }
  private get o(): number {
    return this.outShape[0] ?? 0;
  }

  /** Room for the split-K slices of the tiled kernels this tuning may pick (Layer.workspaceBytes). */
  workspaceBytes(batch: number, tuning: Tuning, rowsOf = batch): number {
    const f = forwardTiles(this.i, tuning);
    const w = weightTiles(this.i, tuning);
    const forward = f ? forwardSplits(this.i, this.o, rowsOf, tuning, f) * batch * this.o : 0;
    // every rank's weight slices (RankRows)
    const ranks = Math.ceil(batch / rowsOf);
    const weight = w ? ranks * weightSplits(this.i, this.o, rowsOf, tuning, w) * this.o * (this.i + 1) : 0;
    // fp16 runs may take the subgroup-matrix kernels (which depends on the device)
    const mf = useHalfMatrix('linear-forward', this.i, tuning, 'f16', true);
    const mw = useHalfMatrix('linear-weight', this.i, tuning, 'f16', true);
    const matrix = Math.max(
      mf ? matrixForwardSplits(this.i, this.o, rowsOf) * batch * this.o : 0,
      mw ? ranks * matrixWeightSplits(rowsOf) * this.o * (this.i + 1) : 0,
    );
    return 4 * Math.max(forward, weight, matrix);
  }

  private halfMatrix(ctx: BuildContext, use: 'linear-forward' | 'linear-weight'): boolean {
    return useHalfMatrix(use, this.i, ctx.tuning, ctx.paramStorage, ctx.gpu.halfMatrix);
  }

  // x [N, i] -> y [N, o] = relu?(x W^T + b)
  async forward(ctx: BuildContext, x: Operand, y: Operand, batch: number, rowsOf = batch): Promise<Op[]> {
    if (this.halfMatrix(ctx, 'linear-forward')) return this.forwardMatrix(ctx, x, y, batch, rowsOf);
    const t = forwardTiles(this.i, ctx.tuning, ctx.gpu.device.limits);
    if (t) return this.forwardTiled(ctx, x, y, batch, t, rowsOf);
    const k = await ctx.gpu.kernels.get('linear_forward', {}, ctx.paramStorage, halvesOf({ x, y }));
    const { WG_X = 16, WG_Y = 4 } = k.overrides;
    return [
      makeOp(
        ctx.gpu,
        k,
        `${this.name}.forward`,
        {
          n: batch,
          i: this.i,
          o: this.o,
          w_off: ctx.paramOffset(this.weight),
          b_off: ctx.paramOffset(this.bias),
          relu: this.relu ? 1 : 0,
        },
        { x, theta: ctx.params, y },
        [cdiv(cdiv(this.o, 4), WG_X), cdiv(cdiv(batch, 4), WG_Y), 1],
      ),
    ];
  }

  // The tiled forward: split-K partial sums into the workspace, then their sum, the bias and the ReLU.
  private async forwardTiled(
    ctx: BuildContext,
    x: Operand,
    y: Operand,
    batch: number,
    t: ForwardTiles,
    rowsOf: number,
  ) {
    const g = ctx.gpu;
    const splits = forwardSplits(this.i, this.o, rowsOf, ctx.tuning, t);
    const kt = await g.kernels.get('linear_forward_tiled', { ...t }, ctx.paramStorage, halvesOf({ x }));
    const kr = await g.kernels.get('linear_forward_reduce', {}, ctx.paramStorage);
    const shape = { n: batch, i: this.i, o: this.o };
    return [
      makeOp(
        g,
        kt,
        `${this.name}.forward`,
        { ...shape, w_off: ctx.paramOffset(this.weight), splits },
        { x, theta: ctx.params, partial: ctx.workspace },
        [cdiv(this.o, t.TO), cdiv(batch, t.TN), splits],
      ),
      makeOp(
        g,
        kr,
        `${this.name}.forward_reduce`,
        { n: batch, o: this.o, b_off: ctx.paramOffset(this.bias), relu: this.relu ? 1 : 0, splits },
        { partial: ctx.workspace, theta: ctx.params, y },
        grid1d(batch * this.o, kr.overrides.WG ?? 64),
      ),
    ];
  }

  // fp16 on subgroup matrices: split-K partial sums in f16 x f16 -> f32 tiles, then the same reduce.
  private async forwardMatrix(ctx: BuildContext, x: Operand, y: Operand, batch: number, rowsOf: number) {
    const g = ctx.gpu;
    const splits = matrixForwardSplits(this.i, this.o, rowsOf);
    const km = await g.kernels.get('linear_forward_sgmat', { SG: g.subgroupSize }, ctx.paramStorage, halvesOf({ x }));
    const kr = await g.kernels.get('linear_forward_reduce', {}, ctx.paramStorage);
    return [
      makeOp(
        g,
        km,
        `${this.name}.forward`,
        { n: batch, i: this.i, o: this.o, w_off: ctx.paramOffset(this.weight), splits },
        { x, theta: ctx.params, partial: ctx.workspace },
        [cdiv(batch, MATRIX_TILE), cdiv(this.o, MATRIX_TILE), splits],
      ),
      makeOp(
        g,
        kr,
        `${this.name}.forward_reduce`,
        { n: batch, o: this.o, b_off: ctx.paramOffset(this.bias), relu: this.relu ? 1 : 0, splits },
        { partial: ctx.workspace, theta: ctx.params, y },
        grid1d(batch * this.o, kr.overrides.WG ?? 64),
      ),
    ];
  }

  // dy [N, o] (pre-activation gradient) -> dx [N, i] = dy W (masked by x > 0)
  async backwardInput(ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]> {
    const g = ctx.gpu;
    const ops: Op[] = [];
    if (io.dx) {
      const k = await g.kernels.get('linear_backward_input', {}, ctx.paramStorage, halvesOf({ x: io.x }));
      const { WG_X = 16, WG_Y = 4 } = k.overrides;
      ops.push(
        makeOp(
          g,
          k,
          `${this.name}.backward_input`,
          {
            n: batch,
            i: this.i,
            o: this.o,
            w_off: ctx.paramOffset(this.weight),
            relu_mask: this.maskInputGrad ? 1 : 0,
          },
          { dy: io.dy, theta: ctx.params, x: io.x, dx: io.dx },
          [cdiv(cdiv(this.i, 4), WG_X), cdiv(cdiv(batch, 4), WG_Y), 1],
        ),
      );
    }
    return ops;
  }

  // dW += dy^T x; db += sum_n dy; with ranks, each rank's over its own rows (RankRows): the sliced
  // kernels' slice boundaries s * n / S fall on the ranks' boundaries, so one dispatch makes every
  // rank's slices and the reduce sums each rank's; the unsliced kernel runs once per rank on its rows.
  async backwardWeight(ctx: BuildContext, io: BackwardIO, batch: number, ranks = ONE_RANK): Promise<Op[]> {
    const g = ctx.gpu;
    const rows = rankRows(this.name, batch, ranks);
    if (this.halfMatrix(ctx, 'linear-weight')) return this.backwardWeightMatrix(ctx, io, batch, rows, ranks);
    const t = weightTiles(this.i, ctx.tuning, g.device.limits);
    if (t) return this.backwardWeightTiled(ctx, io, batch, t, rows, ranks);
    const k = await g.kernels.get('linear_backward_weight', {}, 'f32', halvesOf({ x: io.x }));
    const { WG_X = 16, WG_Y = 4 } = k.overrides;
    if (ranks.count > 1 && isHalfBuffer(io.x)) throw new Error(`${this.name}: ranks' rows of fp16 activations`);
    const ops: Op[] = [];
    for (let r = 0; r < ranks.count; r++) {
      const one = ranks.count === 1;
      const x = one ? io.x : sliceOf(io.x, r * rows * this.i * 4, rows * this.i * 4);
      const dy = one ? io.dy : sliceOf(io.dy, r * rows * this.o * 4, rows * this.o * 4);
      ops.push(
        makeOp(
          g,
          k,
          `${this.name}.backward_weight`,
          {
            n: rows,
            i: this.i,
            o: this.o,
            w_off: ctx.gradOffset(this.weight) + r * ranks.gradStride,
            b_off: ctx.gradOffset(this.bias) + r * ranks.gradStride,
          },
          { dy, x, grad: ctx.grads },
          [cdiv(cdiv(this.i, 4), WG_X), cdiv(cdiv(this.o, 4), WG_Y), 1],
        ),
      );
    }
    return ops;
  }

  // fp16 on subgroup matrices: the weight gradient's slices ([S, o, i + 1], as the tiled kernel's) in
  // f16 x f16 -> f32 tiles, summed by the same reduce.
  private async backwardWeightMatrix(ctx: BuildContext, io: BackwardIO, batch: number, rows: number, ranks: RankRows) {
    const g = ctx.gpu;
    const splits = matrixWeightSplits(rows);
    const km = await g.kernels.get(
      'linear_backward_weight_sgmat',
      { SG: g.subgroupSize },
      'f32',
      halvesOf({ x: io.x }),
    );
    const slices = makeOp(
      g,
      km,
      `${this.name}.backward_weight`,
      { n: batch, i: this.i, o: this.o, splits: ranks.count * splits },
      { dy: io.dy, x: io.x, partial: ctx.workspace },
      [cdiv(this.o, MATRIX_TILE), cdiv(this.i + 1, MATRIX_TILE), ranks.count * splits],
    );
    return [slices, await this.sliceReduce(ctx, splits, ranks)];
  }

  // The tiled weight gradient: split-K slices over the batch into the workspace ([S, o, i + 1], the
  // bias last), summed into the gradients by the convolutions' reduce kernel.
  private async backwardWeightTiled(
    ctx: BuildContext,
    io: BackwardIO,
    batch: number,
    t: WeightTiles,
    rows: number,
    ranks: RankRows,
  ) {
    const g = ctx.gpu;
    const splits = weightSplits(this.i, this.o, rows, ctx.tuning, t);
    const kt = await g.kernels.get('linear_backward_weight_tiled', { ...t }, 'f32', halvesOf({ x: io.x }));
    const slices = makeOp(
      g,
      kt,
      `${this.name}.backward_weight`,
      { n: batch, i: this.i, o: this.o, splits: ranks.count * splits },
      { dy: io.dy, x: io.x, partial: ctx.workspace },
      [cdiv(this.i, t.TI), cdiv(this.o, t.TO), ranks.count * splits],
    );
    return [slices, await this.sliceReduce(ctx, splits, ranks)];
  }

  /** The reduce that sums `splits` weight-gradient slices of the workspace into the gradients, each rank's into its own. */
  private async sliceReduce(ctx: BuildContext, splits: number, ranks: RankRows): Promise<Op> {
    const kr = await ctx.gpu.kernels.get('conv2d_backward_weight_reduce', WEIGHT_REDUCE);
    const reduce = {
      co: this.o,
      k: this.i,
      splits,
      w_off: ctx.gradOffset(this.weight),
      b_off: ctx.gradOffset(this.bias),
      rank_grad: ranks.gradStride,
    };
    return makeOp(
      ctx.gpu,
      kr,
      `${this.name}.backward_weight_reduce`,
      reduce,
      { partial: ctx.workspace, grad: ctx.grads },
      [cdiv(this.o * (this.i + 1), kr.overrides.OUTS ?? 64), ranks.count, 1],
    );
  }
}
