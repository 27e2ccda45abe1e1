// The typed API a training worker exposes over comlink (browser module worker or Node
// worker_thread): build a trainer on the worker's own device, load parameters, train and
// evaluate batches, report memory. Plain data in and out (structured-clone safe), no `any`.
import { acquireDevice, type AdapterSummary, type Gpu } from '../gpu/device.ts';
import type { MemorySnapshot } from '../gpu/memory.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import type { OptimizerConfig } from '../optim/optimizer.ts';
import type { Batch } from '../data/batch.ts';
import { Trainer, type StepResult } from './trainer.ts';

export interface LocalInit {
  readonly label: string;
  readonly width: number;
  readonly maxBatch: number;
  readonly optimizer: OptimizerConfig;
  readonly clipGradNorm?: number;
}

export interface LocalTrainerApi {
  init(cfg: LocalInit): Promise<{ adapter: AdapterSummary; params: number }>;
  setParams(flat: Float32Array): Promise<void>;
  readParams(): Promise<Float32Array>;
  readGrads(): Promise<Float32Array>;
  /** The logits of the last forward, [batch, 10]. */
  readLogits(batch: number): Promise<Float32Array>;
  step(batch: Batch, update: boolean): Promise<StepResult>;
  evaluate(batch: Batch): Promise<StepResult>;
  memory(): Promise<MemorySnapshot>;
  dispose(): Promise<void>;
}

/** The worker side of LocalTrainerApi, for a worker whose WebGPU entry point is `gpu`. */
export function createLocalTrainerApi(getGpu: () => Promise<GPU>): LocalTrainerApi {
  let state: { gpu: Gpu; trainer: Trainer } | null = null;
  const need = () => {
    if (!state) throw new Error('the worker has no trainer yet: call init() first');
    state.gpu.assertAlive();
    return state;
  };
  return {
    async init(cfg) {
      const gpu = await acquireDevice(await getGpu(), { label: cfg.label });
      const trainer = await Trainer.create(gpu, {
        spec: simpleCnnSpec(cfg.width),
        maxBatch: cfg.maxBatch,
        optimizer: cfg.optimizer,
        ...(cfg.clipGradNorm ? { clipGradNorm: cfg.clipGradNorm } : {}),
      });
      state = { gpu, trainer };
      return { adapter: gpu.adapter, params: trainer.spec.total };
    },
    async setParams(flat) {
      need().trainer.setParams(flat);
    },
    readParams: () => need().trainer.readParams(),
    readGrads: () => need().trainer.readGrads(),
    readLogits: (batch) => need().trainer.readLogits(batch),
    step: (batch, update) => need().trainer.step(batch, { update }),
    evaluate: (batch) => need().trainer.evaluate(batch),
    async memory() {
      return need().gpu.memory.snapshot();
    },
    async dispose() {
      state?.trainer.destroy();
      state?.gpu.destroy();
      state = null;
    },
  };
}
