// Runs one kernel on a real device for a test: uploads the inputs, dispatches once inside
// validation error scopes, reads back every read_write binding. Bindings named in `halves` hold
// packed fp16 halves (src/gpu/half-acts.ts): their inputs are the packed words, their outputs come
// back as the raw words (read them through a Uint32Array view).
import { bufferFrom, readFloats, storageBuffer } from '../../gpu/buffers.ts';
import type { Gpu } from '../../gpu/device.ts';
import { withErrorScopes } from '../../gpu/errors.ts';
import { KERNELS, type BindingName, type KernelName } from '../../gpu/kernels.ts';
import { makeOp, type OpParams, type Workgroups } from '../../gpu/op.ts';
import { Recorder } from '../../gpu/recorder.ts';

/** A binding's initial contents, or a number of zero floats. */
export type OpInput = Float32Array | Int32Array | Uint32Array | number;

export async function runOp<K extends KernelName>(
  gpu: Gpu,
  name: K,
  params: OpParams<K>,
  inputs: Readonly<Record<BindingName<K>, OpInput>>,
  workgroups: Workgroups | ((overrides: Readonly<Record<string, number>>) => Workgroups),
  overrides: Record<string, number> = {},
  halves: readonly BindingName<K>[] = [],
): Promise<Record<string, Float32Array<ArrayBuffer>>> {
  const kernel = await gpu.kernels.get(name, overrides, 'f32', halves);
  const named = inputs as Readonly<Record<string, OpInput>>;
  const buffers: Record<string, GPUBuffer> = {};
  for (const [b] of KERNELS[name].bindings) {
    if (b === 'params') continue;
    const v = named[b];
    if (v === undefined) throw new Error(`runOp ${name}: no input for binding '${b}'`);
    buffers[b] =
      typeof v === 'number'
        ? storageBuffer(gpu, `test.${b}`, v * 4, 'other')
        : bufferFrom(gpu, `test.${b}`, v, 'other');
  }
  const wg = typeof workgroups === 'function' ? workgroups(kernel.overrides) : workgroups;
  const out: Record<string, Float32Array<ArrayBuffer>> = {};
  await withErrorScopes(gpu.device, gpu.label, `test dispatch of ${name}`, async () => {
    const op = makeOp(gpu, kernel, `test.${name}`, params, buffers as Record<BindingName<K>, GPUBuffer>, wg);
    const rec = new Recorder(gpu, `test.${name}`);
    rec.dispatch(op);
    rec.submit();
    for (const [b, kind] of KERNELS[name].bindings) {
      const buf = buffers[b];
      if (kind === 'read_write' && buf) out[b] = await readFloats(gpu, buf);
    }
    op.destroy();
  });
  for (const b of Object.values(buffers)) gpu.memory.destroy(b);
  return out;
}

/** Deterministic float32 test data in [-scale, scale). */
export function randn(n: number, seed: number, scale = 1): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return ((s / 4294967296) * 2 - 1) * scale;
  });
}

/** A flat "parameter arena" holding the given tensors after `pad` leading values, and their offsets. */
export function arena(pad: number, ...tensors: Float32Array[]): { data: Float32Array; offsets: number[] } {
  const total = pad + tensors.reduce((a, t) => a + t.length, 0);
  const data = randn(total, 99);
  const offsets: number[] = [];
  let at = pad;
  for (const t of tensors) {
    data.set(t, at);
    offsets.push(at);
    at += t.length;
  }
  return { data, offsets };
}

/** An override constant of a built kernel (its registry default at least), by name. */
export function at(overrides: Readonly<Record<string, number>>, name: string): number {
  const v = overrides[name];
  if (v === undefined) throw new Error(`the kernel has no override constant '${name}'`);
  return v;
}

/** `before` with `dw` added at `wOff` and `db` at `bOff` in float32: what a kernel accumulating into gradients leaves. */
export function accumulated(
  before: Float32Array,
  wOff: number,
  dw: ArrayLike<number>,
  bOff: number,
  db: ArrayLike<number>,
): Float32Array {
  const want = before.slice();
  for (let i = 0; i < dw.length; i++) want[wOff + i] = Math.fround((want[wOff + i] ?? 0) + (dw[i] ?? 0));
  for (let i = 0; i < db.length; i++) want[bOff + i] = Math.fround((want[bOff + i] ?? 0) + (db[i] ?? 0));
  return want;
}
