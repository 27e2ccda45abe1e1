// Host reads and writes of one device's arenas: every parameter set (fp16 / bf16: the layers'
// halves and the optimizer's fp32 master), packed halves sent or read as they are, gradients
// written back (an all-reduced bucket, ZeRO's reduced slice), and the parameters, gradients and
// logits read back. The functions take the trainer's parts, not the Trainer.
import { readBuffer, readFloats, writeFloats } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import type { ModelSpec } from '../nn/spec.ts';
import { HALF_CODECS } from './half-format.ts';
import type { Model } from '../nn/model.ts';
import type { HalfFormat } from './half-format.ts';
import type { Fp32Master } from './master.ts';

/** What the reads and writes touch: the device, the model spec and the trainer's buffers (Trainer's fields). */
export interface Arenas {
  readonly gpu: Gpu;
  readonly spec: ModelSpec;
  readonly params: GPUBuffer;
  readonly grads: GPUBuffer;
  readonly model: Model;
  readonly shardGrads: GPUBuffer | null;
  readonly shardOffset: number;
  readonly master: Fp32Master | null;
  readonly halfFormat: HalfFormat | null;
}

/** Throws when the parameters are not a full arena here (ZeRO-3: the mode's runner holds them). */
function assertFullParams(a: Arenas): void {
  if (a.params.size !== (a.halfFormat ? Math.ceil(a.spec.total / 2) : a.spec.total) * 4)
    throw new Error(`this trainer holds a ${a.params.label} of ${a.params.size / 4} elements, not the parameters`);
}

/**
 * Sets every parameter. fp16: the layers' halves are `flat` rounded to fp16, and the master slice
 * their values (DeepSpeed halves the module first, then copies its fp32 master from the halves).
 */
export function setParams(a: Arenas, flat: Float32Array): void {
  assertFullParams(a);
  if (flat.length !== a.spec.total) throw new Error(`expected ${a.spec.total} parameters, got ${flat.length}`);
  const codec = a.halfFormat ? HALF_CODECS[a.halfFormat] : null;
  const halves = codec ? codec.pack(flat) : null;
  writeFloats(a.gpu, a.params, 0, halves ?? flat);
  if (codec && halves) a.master?.write(codec.unpack(halves, flat.length));
}

/** fp16: sets every parameter from packed halves (DataParallel's replicas: device 0's halves as sent); not a master. */
export function setHalves(a: Arenas, words: Uint32Array): void {
  assertFullParams(a);
  if (!a.halfFormat || words.byteLength !== a.params.size)
    throw new Error(`expected ${a.params.size / 4} words of fp16 parameters, got ${words.length}`);
  writeFloats(a.gpu, a.params, 0, words);
}

/** fp16: the parameters as the layers hold them, packed halves. */
export async function readHalves(a: Arenas): Promise<Uint32Array> {
  assertFullParams(a);
  if (!a.halfFormat) throw new Error('this trainer does not hold 16-bit parameters');
  return new Uint32Array(await readBuffer(a.gpu, a.params));
}

/** The parameters the layers use (fp16: the halves' values, as a DeepSpeed fp16 module's state_dict holds). */
export async function readParams(a: Arenas): Promise<Float32Array<ArrayBuffer>> {
  assertFullParams(a);
  if (!a.halfFormat) return readFloats(a.gpu, a.params, 0, a.spec.total);
  const codec = HALF_CODECS[a.halfFormat];
  return codec.unpack(await readHalves(a), a.spec.total) as Float32Array<ArrayBuffer>;
}

/** Writes `data` (e.g. an all-reduced bucket) into the gradient arena from element `offset`. */
export function writeGrads(a: Arenas, offset: number, data: Float32Array, label: string): void {
  a.gpu.uploads.write(a.grads, offset * 4, data, 'communication', label);
}

/** Writes this rank's reduced gradient slice where its optimizer reads it (ZeRO after reduce-scatter). */
export function writeShardGrads(a: Arenas, data: Float32Array): void {
  if (a.shardGrads) a.gpu.uploads.write(a.shardGrads, 0, data, 'communication', 'grads.shard');
  else writeGrads(a, a.shardOffset, data, 'grads.shard');
}

export function readGrads(a: Arenas): Promise<Float32Array<ArrayBuffer>> {
  return readFloats(a.gpu, a.grads, 0, a.spec.total);
}

export function readLogits(a: Arenas, batch: number): Promise<Float32Array<ArrayBuffer>> {
  return readFloats(a.gpu, a.model.logits, 0, batch * a.spec.classes);
}
