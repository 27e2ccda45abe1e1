// A batch into the model's input buffers: its labels checked against the classes, its pixels
// (uint8, normalised on the GPU) or its float32 input (packed to halves where the model stores
// fp16 activations) uploaded through the device's upload pool.
import type { Batch } from '../data/batch.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Recorder } from '../gpu/recorder.ts';
import type { Model, StepPlan } from '../nn/model.ts';
import { packHalves } from '../numeric/f16.ts';

/** Writes `b` into `model`'s input buffers and returns the plan for its size. */
export async function uploadBatch(gpu: Gpu, model: Model, b: Batch): Promise<StepPlan> {
  const plan = await model.plan(b.labels.length);
  uploadRows(gpu, model, b, 0);
  return plan;
}

/**
 * uploadBatch as part of the step's own recording: `b` staged in one buffer and its copies into
 * the input buffers recorded first into `rec` (no submit or staging buffer of its own, one fewer
 * host round trip a step); the staging buffer returns to the pool once `rec` is submitted.
 */
export async function recordBatch(gpu: Gpu, model: Model, b: Batch, rec: Recorder): Promise<StepPlan> {
  const plan = await model.plan(b.labels.length);
  const input = inputBytes(model, b);
  const staged = gpu.uploads.stage([input.data, b.labels], 'other', 'input.batch');
  rec.copy(staged.buffer, 0, input.dst, 0, input.data.byteLength);
  rec.copy(staged.buffer, input.data.byteLength, model.labels, 0, b.labels.byteLength);
  rec.afterSubmit(() => staged.submitted());
  return plan;
}

/** The input buffers a batch is written into. */
export type InputBuffers = Pick<Model, 'spec' | 'labels' | 'bytes' | 'x' | 'halfActivations'>;

/**
 * Writes `b` into the input buffers from sample `row` on (ranks sharing a device: a rank's rows of
 * every rank's batch), its labels checked against the classes.
 */
export function uploadRows(gpu: Gpu, model: InputBuffers, b: Batch, row: number): void {
  const input = inputBytes(model, b);
  const per = model.spec.input[0] * model.spec.input[1] * model.spec.input[2];
  // a row's first byte: a pixel is a byte, a float32 input 4 bytes, a half 2
  const at = row * per * ('images' in b ? 1 : model.halfActivations ? 2 : 4);
  if (at % 4 !== 0) throw new Error(`input of row ${row} does not start on a word (byte ${at})`);
  const up = gpu.uploads;
  up.write(model.labels, row * 4, b.labels, 'other', 'input.labels');
  up.write(input.dst, at, input.data, 'other', 'images' in b ? 'input.bytes' : 'input.x');
}

/**
 * A batch's input as the input buffer holds it, its labels checked against the classes: the pixel
 * bytes (padded to a word) for `bytes`, or the float32 input (packed into halves where the model
 * stores fp16 activations) for `x`.
 */
function inputBytes(model: InputBuffers, b: Batch): { readonly dst: GPUBuffer; readonly data: ArrayBufferView } {
  const spec = model.spec;
  const n = b.labels.length;
  const per = spec.input[0] * spec.input[1] * spec.input[2];
  checkLabels(b.labels, spec.classes);
  if ('images' in b) {
    if (b.images.length !== n * per)
      throw new Error(`batch of ${n} labels needs ${n * per} pixel bytes, got ${b.images.length}`);
    const padded =
      b.images.length % 4 === 0
        ? b.images
        : Uint8Array.from({ length: Math.ceil(b.images.length / 4) * 4 }, (_, i) => b.images[i] ?? 0);
    return { dst: model.bytes, data: padded };
  }
  if (b.x.length !== n * per) throw new Error(`batch of ${n} labels needs ${n * per} input floats, got ${b.x.length}`);
  return { dst: model.x, data: model.halfActivations ? packHalves(b.x) : b.x };
}

/**
 * Ranks sharing a device: every rank's batch (all of `rows` samples, in rank order) staged in one
 * buffer and its copies into the float32 input buffers recorded into `rec`, ahead of the step that
 * reads them. Returns what to call once `rec` is submitted.
 */
export function recordRows(
  gpu: Gpu,
  model: InputBuffers,
  batches: readonly Batch[],
  rows: number,
  rec: Recorder,
): () => void {
  const spec = model.spec;
  const per = spec.input[0] * spec.input[1] * spec.input[2];
  const images: Uint8Array[] = [];
  const floats: Float32Array[] = [];
  for (const [r, b] of batches.entries()) {
    if (b.labels.length !== rows) throw new Error(`rank ${r}'s batch has ${b.labels.length} samples, not ${rows}`);
    checkLabels(b.labels, spec.classes);
    if ('images' in b) {
      if (b.images.length !== rows * per)
        throw new Error(`rank ${r}'s batch of ${rows} labels needs ${rows * per} pixel bytes, got ${b.images.length}`);
      images.push(b.images);
    } else {
      if (b.x.length !== rows * per)
        throw new Error(`rank ${r}'s batch of ${rows} labels needs ${rows * per} input floats, got ${b.x.length}`);
      floats.push(b.x);
    }
  }
  if (images.length > 0 && floats.length > 0) throw new Error("the ranks' batches are not all pixels or all floats");
  if (model.halfActivations) throw new Error('recordRows: the rows are float32');
  const input = images.length > 0 ? images : floats;
  const staged = gpu.uploads.stage([...input, ...batches.map((b) => b.labels)], 'other', 'input.rows');
  const inputBytes = input.reduce((n, p) => n + p.byteLength, 0);
  rec.copy(staged.buffer, 0, images.length > 0 ? model.bytes : model.x, 0, inputBytes);
  rec.copy(staged.buffer, inputBytes, model.labels, 0, staged.bytes - inputBytes);
  return () => staged.submitted();
}

function checkLabels(labels: Int32Array, classes: number): void {
  for (const y of labels) {
    if (!Number.isInteger(y) || y < 0 || y >= classes) throw new RangeError(`label ${y} is outside 0..${classes - 1}`);
  }
}
