// A batch into the model's input buffers: its labels checked against the classes, its pixels
// (uint8, normalised on the GPU) or its float32 input (packed to halves where the model stores
// fp16 activations) uploaded through the device's upload pool.
import type { Batch } from '../data/batch.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Model, StepPlan } from '../nn/model.ts';
import { packHalves } from '../numeric/f16.ts';

/** Writes `b` into `model`'s input buffers and returns the plan for its size. */
export async function uploadBatch(gpu: Gpu, model: Model, b: Batch): Promise<StepPlan> {
  const spec = model.spec;
  const n = b.labels.length;
  const per = spec.input[0] * spec.input[1] * spec.input[2];
  const plan = await model.plan(n);
  for (const y of b.labels) {
    if (!Number.isInteger(y) || y < 0 || y >= spec.classes)
      throw new RangeError(`label ${y} is outside 0..${spec.classes - 1}`);
  }
  const up = gpu.uploads;
  up.write(model.labels, 0, b.labels, 'other', 'input.labels');
  if ('images' in b) {
    if (b.images.length !== n * per)
      throw new Error(`batch of ${n} labels needs ${n * per} pixel bytes, got ${b.images.length}`);
    const padded =
      b.images.length % 4 === 0
        ? b.images
        : Uint8Array.from({ length: Math.ceil(b.images.length / 4) * 4 }, (_, i) => b.images[i] ?? 0);
    up.write(model.bytes, 0, padded, 'other', 'input.bytes');
  } else {
    if (b.x.length !== n * per)
      throw new Error(`batch of ${n} labels needs ${n * per} input floats, got ${b.x.length}`);
    up.write(model.x, 0, model.halfActivations ? packHalves(b.x) : b.x, 'other', 'input.x');
  }
  return plan;
}
