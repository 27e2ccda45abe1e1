// torch.optim.Adam and AdamW on the GPU (adam_step.wgsl). The step-dependent scalars are computed
// here in float64 and rounded to float32, as PyTorch's single-tensor path does.
import { readFloats, storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { writeState, type ArenaSlice, type Optimizer, type OptimizerConfig } from './optimizer.ts';

/** The float32 scalars of Adam step `t` (1-based) at learning rate `lr`. */
export function adamScalars(config: OptimizerConfig, t: number, lr: number) {
  const [b1, b2] = config.betas ?? [0.9, 0.999];
  const wd = config.weightDecay ?? (config.name === 'adamw' ? 0.01 : 0);
  const f = Math.fround;
  return {
    one_minus_beta1: f(1 - b1), beta2: f(b2), one_minus_beta2: f(1 - b2), eps: f(config.eps ?? 1e-8),
    step_size: f(lr / (1 - b1 ** t)), bc2_sqrt: f(Math.sqrt(1 - b2 ** t)), weight_decay: f(wd), decay: f(1 - lr * wd),
    decoupled: config.name === 'adamw' ? 1 : 0,
  };
}

export class AdamOptimizer implements Optimizer {
  steps = 0;

  private constructor(readonly config: OptimizerConfig, private readonly gpu: Gpu, private readonly op: Op<'adam_step'>,
    private readonly m: GPUBuffer, private readonly v: GPUBuffer, private readonly count: number) {}

  static async create(gpu: Gpu, config: OptimizerConfig, s: ArenaSlice): Promise<AdamOptimizer> {
    const m = storageBuffer(gpu, `${config.name}.exp_avg`, s.count * 4, 'optimizer');
    const v = storageBuffer(gpu, `${config.name}.exp_avg_sq`, s.count * 4, 'optimizer');
    const k = await gpu.kernels.get('adam_step');
    const op = makeOp(gpu, k, `${config.name}.step`, {
      count: s.count, p_off: s.paramOffset, g_off: s.gradOffset, ...adamScalars(config, 1, config.lr),
    }, { grad: s.grads, theta: s.params, m, v }, grid1d(s.count, k.overrides.WG ?? 64));
    return new AdamOptimizer(config, gpu, op, m, v, s.count);
  }

  record(rec: Recorder, lr = this.config.lr): void {
    this.steps++;
    this.op.setParams(adamScalars(this.config, this.steps, lr));
    rec.dispatch(this.op);
  }

  async readState(): Promise<Record<string, Float32Array>> {
    return { exp_avg: await readFloats(this.gpu, this.m, 0, this.count), exp_avg_sq: await readFloats(this.gpu, this.v, 0, this.count) };
  }

  loadState(state: Record<string, Float32Array>, steps: number): void {
    if (steps > 0) {
      writeState(this.gpu, this.m, 'exp_avg', state.exp_avg, this.count);
      writeState(this.gpu, this.v, 'exp_avg_sq', state.exp_avg_sq, this.count);
    }
    this.steps = steps;
  }

  destroy(): void {
    this.op.destroy();
    this.gpu.memory.destroy(this.m);
    this.gpu.memory.destroy(this.v);
  }
}
