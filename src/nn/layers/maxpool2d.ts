// MaxPool2d(2): forward and backward side by side. When the pool's input is a ReLU output
// (reluMask), the backward writes the gradient of the pre-activation directly (fused ReLU backward).
import { halvesOf } from '../../gpu/half-acts.ts';
import { grid1d, makeOp, type Op } from '../../gpu/op.ts';
import type { Operand } from '../../gpu/operand.ts';
import type { BackwardIO, BuildContext, Layer, Shape } from '../layer.ts';
import type { ParamSpec } from '../spec.ts';

export class MaxPool2dLayer implements Layer {
  readonly inShape: Shape;
  readonly outShape: Shape;
  readonly params: readonly ParamSpec[] = [];

  constructor(
    readonly name: string,
    private readonly c: number,
    private readonly h: number,
    private readonly w: number,
    private readonly reluMask: boolean,
  ) {
    this.inShape = [c, h, w];
    this.outShape = [c, Math.floor(h / 2), Math.floor(w / 2)];
  }

  workspaceBytes(): number {
    return 0;
  }

  // x [N, c, h, w] -> y [N, c, h/2, w/2]
  async forward(ctx: BuildContext, x: Operand, y: Operand, batch: number): Promise<Op[]> {
    const k = await ctx.gpu.kernels.get('maxpool2d_forward', {}, 'f32', halvesOf({ x, y }));
    const count = batch * this.c * Math.floor(this.h / 2) * Math.floor(this.w / 2);
    return [
      makeOp(
        ctx.gpu,
        k,
        `${this.name}.forward`,
        { nc: batch * this.c, h: this.h, w: this.w },
        { x, y },
        grid1d(Math.ceil(count / 2), k.overrides.WG ?? 64), // two outputs per invocation
      ),
    ];
  }

  // dy [N, c, h/2, w/2] -> dx [N, c, h, w] (zero except at each window's first maximum)
  async backwardInput(ctx: BuildContext, io: BackwardIO, batch: number): Promise<Op[]> {
    if (!io.dx) return [];
    const k = await ctx.gpu.kernels.get('maxpool2d_backward', {}, 'f32', halvesOf({ x: io.x }));
    // One invocation per 2x2 window, odd edges included (maxpool2d_backward.wgsl).
    const count = batch * this.c * Math.ceil(this.h / 2) * Math.ceil(this.w / 2);
    return [
      makeOp(
        ctx.gpu,
        k,
        `${this.name}.backward`,
        { nc: batch * this.c, h: this.h, w: this.w, relu_mask: this.reluMask ? 1 : 0 },
        { x: io.x, dy: io.dy, dx: io.dx },
        grid1d(count, k.overrides.WG ?? 64),
      ),
    ];
  }

  async backwardWeight(): Promise<Op[]> {
    return [];
  }
}
