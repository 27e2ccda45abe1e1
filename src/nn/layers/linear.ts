// Linear(i, o) with the bias and (optionally) the ReLU fused into the forward; forward and backward
// side by side. With maskInputGrad the layer's input is a ReLU output, and the input gradient is
// written already masked (the previous layer's ReLU backward, fused).
import { halvesOf } from '../../gpu/half-acts.ts';
import { cdiv, makeOp, type Op } from '../../gpu/op.ts';
import type { BackwardIO, BuildContext, Layer, Shape } from '../layer.ts';
import type { ParamSpec } from '../spec.ts';

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

  workspaceBytes(): number {
    return 0;
  }

  // x [N, i] -> y [N, o] = relu?(x W^T + b)
  async forward(ctx: BuildContext, x: GPUBuffer, y: GPUBuffer, batch: number): Promise<Op[]> {
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

  // dy [N, o] (pre-activation gradient) -> dx [N, i] = dy W (masked by x > 0); dW += dy^T x; db += sum_n dy
  async backward(ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]> {
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
    const k = await g.kernels.get('linear_backward_weight', {}, 'f32', halvesOf({ x: io.x }));
    const { WG_X = 16, WG_Y = 4 } = k.overrides;
    ops.push(
      makeOp(
        g,
        k,
        `${this.name}.backward_weight`,
        {
          n: batch,
          i: this.i,
          o: this.o,
          w_off: ctx.gradOffset(this.weight),
          b_off: ctx.gradOffset(this.bias),
        },
        { dy: io.dy, x: io.x, grad: ctx.grads },
        [cdiv(cdiv(this.i, 4), WG_X), cdiv(cdiv(this.o, 4), WG_Y), 1],
      ),
    );
    return ops;
  }
}
