// torch.optim.SGD on the GPU (sgd_step.wgsl): momentum, dampening, weight decay, Nesterov.
import { readFloats, storageBuffer, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';
import {
  stateBuffer,
  type ArenaSlice,
  type Optimizer,
  type OptimizerConfig,
  type OptimizerState,
} from './optimizer.ts';

export class SgdOptimizer implements Optimizer {
  steps = 0;

  private constructor(
    readonly config: OptimizerConfig,
    private readonly gpu: Gpu,
    private readonly op: Op<'sgd_step'>,
    private readonly momentum: GPUBuffer,
    /** Elements of the slice this optimizer updates. */
    readonly count: number,
  ) {}

  static async create(gpu: Gpu, config: OptimizerConfig, s: ArenaSlice): Promise<SgdOptimizer> {
    const m = config.momentum ?? 0;
    // The momentum buffer exists only with momentum (PyTorch allocates none without it).
    const momentum = storageBuffer(gpu, 'sgd.momentum_buffer', m !== 0 ? s.count * 4 : 4, 'optimizer');
    const k = await gpu.kernels.get('sgd_step');
    const op = makeOp(
      gpu,
      k,
      'sgd.step',
      {
        count: s.count,
        p_off: s.paramOffset,
        g_off: s.gradOffset,
        first: 1,
        lr: config.lr,
        momentum: m,
        dampening: config.dampening ?? 0,
        weight_decay: config.weightDecay ?? 0,
        nesterov: config.nesterov ? 1 : 0,
      },
      { grad: s.grads, theta: s.params, momentum },
      grid1d(s.count, k.overrides.WG ?? 64),
    );
    return new SgdOptimizer(config, gpu, op, momentum, s.count);
  }

  setMomentum(m: number): void {
    // the buffer exists only when the optimizer was built with momentum (optimizerOf gives a cycled one max_momentum)
    if (m !== 0 && this.momentum.size < this.count * 4)
      throw new Error('SGD built without momentum cannot take a momentum from the schedule');
    this.op.setParams({ momentum: m });
  }

  record(rec: Recorder, lr = this.config.lr): void {
    this.op.setParams({ lr, first: this.steps === 0 ? 1 : 0 });
    rec.dispatch(this.op);
    this.steps++;
  }

  stepParams(t: number, lr: number): { readonly op: Op; readonly params: ArrayBuffer } {
    return { op: this.op, params: this.op.packedWith({ lr, first: t === 1 ? 1 : 0 }) };
  }

  recordDispatch(rec: Recorder): void {
    rec.dispatch(this.op);
  }

  countStep(): void {
    this.steps++;
  }

  async readState(): Promise<OptimizerState> {
    // PyTorch keeps no momentum_buffer without momentum, and none before the first step.
    if ((this.config.momentum ?? 0) === 0 || this.steps === 0) return { step: this.steps, buffers: {} };
    return { step: this.steps, buffers: { momentum_buffer: await readFloats(this.gpu, this.momentum, 0, this.count) } };
  }

  loadState(state: OptimizerState): void {
    this.steps = state.step;
    if ((this.config.momentum ?? 0) === 0 || state.step === 0) return;
    writeFloats(this.gpu, this.momentum, 0, stateBuffer(state, 'momentum_buffer', this.count));
  }

  destroy(): void {
    this.op.destroy();
    this.gpu.memory.destroy(this.momentum);
  }
}
