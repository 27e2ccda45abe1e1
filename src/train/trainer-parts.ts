// A trainer's parts, allocated on its device from its options (trainer-options.ts): the parameter
// arena (fp16 / bf16: packed 16-bit pairs, with the fp32 master of the optimizer's slice), the
// gradient arena (or the shard's own reduced gradients), SimpleCNN's plans over them, the optimizer
// and the optional gradient clipper. trainer.ts is what uses them.
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { tuningFor } from '../gpu/tuning.ts';
import { Model } from '../nn/model.ts';
import type { ParamSpec } from '../nn/spec.ts';
import { GradClipper } from '../optim/clip.ts';
import { createOptimizer } from '../optim/create-optimizer.ts';
import { HALF_CODECS, type HalfFormat } from './half-format.ts';
import { Fp32Master } from './master.ts';
import type { TrainerOptions } from './trainer-options.ts';

/** What buildTrainerParts makes (each part documented on Trainer's fields). */
export type TrainerParts = Awaited<ReturnType<typeof buildTrainerParts>>;

/** Allocates and builds a trainer's parts on `gpu` (and sets the kernels' tuning). */
export async function buildTrainerParts(gpu: Gpu, o: TrainerOptions) {
  const tuning = o.tuning ?? tuningFor(gpu.adapter);
  gpu.kernels.tuning = tuning.kernels;
  const shard = o.shard ?? { offset: 0, count: o.spec.total };
  const pl = o.parameterLayout;
  const format: HalfFormat | null = o.bf16 === true ? 'bf16' : o.fp16 === true ? 'f16' : null;
  const params = format
    ? storageBuffer(
        gpu,
        `${pl?.label ?? 'params'}.${HALF_CODECS[format].name}`,
        Math.ceil((pl?.size ?? o.spec.total) / 2) * 4,
        'parameters',
      )
    : storageBuffer(gpu, pl?.label ?? 'params', (pl?.size ?? o.spec.total) * 4, 'parameters');
  // only where an optimizer steps (not DataParallel's replicas; ZeRO-3's runner keeps its own)
  const master =
    format && o.optimizer !== null ? await Fp32Master.create(gpu, params, shard.offset, shard.count, format) : null;
  const layout = o.gradientLayout ?? { label: 'grads', size: o.spec.total, offset: (p: ParamSpec) => p.offset };
  const grads = storageBuffer(gpu, layout.label, layout.size * 4, 'gradients');
  const shardGrads = o.shard?.ownGradients ? storageBuffer(gpu, 'grads.shard', shard.count * 4, 'gradients') : null;
  const halfActs = o.halfActivations ?? format === 'f16';
  const model = new Model(
    gpu,
    o.spec,
    o.maxBatch,
    params,
    grads,
    tuning,
    layout.offset,
    pl?.offset,
    format ?? 'f32',
    halfActs,
  );
  const optimizer =
    o.optimizer === null
      ? null
      : await createOptimizer(gpu, o.optimizer, {
          params: master?.buffer ?? params,
          grads: shardGrads ?? grads,
          paramOffset: master ? 0 : shard.offset,
          gradOffset: shardGrads ? 0 : shard.offset,
          count: shard.count,
        });
  const clipper =
    o.clipGradNorm && !o.shard
      ? await GradClipper.create(gpu, grads, 0, o.spec.total, o.clipGradNorm, tuning.normWorkgroups)
      : null;
  return {
    params,
    grads,
    model,
    optimizer,
    clipper,
    shardGrads,
    gradOffset: layout.offset,
    shardOffset: shard.offset,
    master,
    halfFormat: format,
  };
}
