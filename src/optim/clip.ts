// clip_grad_norm_ on the GPU: grad_norm.wgsl (partial sums of squares), clip_coef.wgsl (total norm
// and coefficient), scale.wgsl (gradients *= coefficient, read from the GPU: no readback).
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';

export class GradClipper {
  /** [total norm, coefficient, squared norm] after the recorded step. */
  readonly out: GPUBuffer;

  private constructor(
    private readonly gpu: Gpu,
    private readonly partial: GPUBuffer,
    out: GPUBuffer,
    private readonly normOp: Op,
    private readonly coefOp: Op<'clip_coef'>,
    private readonly scaleOp: Op,
  ) {
    this.out = out;
  }

  /** Clips `count` gradients at `offset` in `grads` to a global 2-norm of at most maxNorm. */
  static async create(
    gpu: Gpu,
    grads: GPUBuffer,
    offset: number,
    count: number,
    maxNorm: number,
    workgroups: number,
  ): Promise<GradClipper> {
    if (!(maxNorm > 0)) throw new RangeError(`clip max norm must be > 0 (got ${maxNorm})`);
    const partial = storageBuffer(gpu, 'clip.partial', workgroups * 4, 'other');
    const out = storageBuffer(gpu, 'clip.out', 16, 'other');
    const kn = await gpu.kernels.get('grad_norm');
    const kc = await gpu.kernels.get('clip_coef');
    const ks = await gpu.kernels.get('scale');
    const normOp = makeOp(gpu, kn, 'clip.grad_norm', { count, offset }, { grad: grads, partial }, [workgroups, 1, 1]);
    const coefOp = makeOp(
      gpu,
      kc,
      'clip.coef',
      { count: workgroups, max_norm: maxNorm, extra_sq: 0 },
      { partial, out },
      [1, 1, 1],
    );
    const scaleOp = makeOp(
      gpu,
      ks,
      'clip.scale',
      { count, offset, factor_index: 1 },
      { factor: out, data: grads },
      grid1d(count, ks.overrides.WG ?? 64),
    );
    return new GradClipper(gpu, partial, out, normOp, coefOp, scaleOp);
  }

  /** Records norm, coefficient and scaling. */
  record(rec: Recorder): void {
    rec.dispatch(this.normOp);
    rec.dispatch(this.coefOp);
    rec.dispatch(this.scaleOp);
  }

  destroy(): void {
    for (const op of [this.normOp, this.coefOp, this.scaleOp]) op.destroy();
    this.gpu.memory.destroy(this.partial);
    this.gpu.memory.destroy(this.out);
  }
}
