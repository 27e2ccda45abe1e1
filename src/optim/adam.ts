// torch.optim.Adam and AdamW on the GPU (adam_step.wgsl). The step-dependent scalars are computed
// here in float64 and rounded to float32, as PyTorch's single-tensor path does.
import { readFloats, storageBuffer, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { adamScalars } from '../numeric/adam-scalars.ts';
import {
  stateBuffer,
  type ArenaSlice,
  type Optimizer,
  type OptimizerConfig,
  type OptimizerState,
} from './optimizer.ts';

/** adam_step.wgsl's Params for step `t` (1-based) at rate `lr`: the reference's float32 scalars. */
export function adamParams(config: OptimizerConfig, t: number, lr: number) {
  const [beta1, beta2] = config.betas ?? [0.9, 0.999];
  const decoupled = config.name === 'adamw';
  const s = adamScalars(t, {
    lr,
    beta1,
    beta2,
    eps: config.eps ?? 1e-8,
    weightDecay: config.weightDecay ?? (decoupled ? 0.01 : 0),
    decoupled,
  });
  return {
    one_minus_beta1: s.oneMinusBeta1,
    beta2: s.beta2,
    one_minus_beta2: s.oneMinusBeta2,
    eps: s.eps,
    step_size: s.stepSize,
    bc2_sqrt: s.bc2Sqrt,
    weight_decay: s.weightDecay,
    decay: s.decay,
    decoupled: decoupled ? 1 : 0,
  };
}

export class AdamOptimizer implements Optimizer {
  steps = 0;

  private constructor(
    readonly config: OptimizerConfig,
    private readonly gpu: Gpu,
    private readonly op: Op<'adam_step'>,
    private readonly m: GPUBuffer,
    private readonly v: GPUBuffer,
    /** Elements of the slice this optimizer updates. */
    readonly count: number,
  ) {}

  static async create(gpu: Gpu, config: OptimizerConfig, s: ArenaSlice): Promise<AdamOptimizer> {
    const m = storageBuffer(gpu, `${config.name}.exp_avg`, s.count * 4, 'optimizer');
    const v = storageBuffer(gpu, `${config.name}.exp_avg_sq`, s.count * 4, 'optimizer');
    const k = await gpu.kernels.get('adam_step');
    const op = makeOp(
      gpu,
      k,
      `${config.name}.step`,
      {
        count: s.count,
        p_off: s.paramOffset,
        g_off: s.gradOffset,
        ...adamParams(config, 1, config.lr),
      },
      { grad: s.grads, theta: s.params, m, v },
      grid1d(s.count, k.overrides.WG ?? 64),
    );
    return new AdamOptimizer(config, gpu, op, m, v, s.count);
  }

  /** beta1 from the schedule (PyTorch's bias correction then uses the current beta1, as here). */
  private beta1: number | null = null;

  setMomentum(m: number): void {
    this.beta1 = m;
  }

  private configNow(): OptimizerConfig {
    const b2 = this.config.betas?.[1] ?? 0.999;
    return this.beta1 === null ? this.config : { ...this.config, betas: [this.beta1, b2] as const };
  }

  record(rec: Recorder, lr = this.config.lr): void {
    this.steps++;
    this.op.setParams(adamParams(this.configNow(), this.steps, lr));
    rec.dispatch(this.op);
  }

  stepParams(t: number, lr: number): { readonly op: Op; readonly params: ArrayBuffer } {
    return { op: this.op, params: this.op.packedWith(adamParams(this.configNow(), t, lr)) };
  }

  recordDispatch(rec: Recorder): void {
    rec.dispatch(this.op);
  }

  countStep(): void {
    this.steps++;
  }

  async readState(): Promise<OptimizerState> {
    if (this.steps === 0) return { step: 0, buffers: {} };
    const [m, v] = await Promise.all([
      readFloats(this.gpu, this.m, 0, this.count),
      readFloats(this.gpu, this.v, 0, this.count),
    ]);
    return { step: this.steps, buffers: { exp_avg: m, exp_avg_sq: v } };
  }

  loadState(state: OptimizerState): void {
    this.steps = state.step;
    if (state.step === 0) return;
    writeFloats(this.gpu, this.m, 0, stateBuffer(state, 'exp_avg', this.count));
    writeFloats(this.gpu, this.v, 0, stateBuffer(state, 'exp_avg_sq', this.count));
  }

  destroy(): void {
    this.op.destroy();
    this.gpu.memory.destroy(this.m);
    this.gpu.memory.destroy(this.v);
  }
}
