// fp16 activation storage for the layer kernels, without shader-f16 (DeepSpeed's fp16 keeps the
// tensors the forward saves for backward in half precision): an activation buffer holds packed
// halves, two per u32 in pack2x16float's order (element 2k in the low 16 bits of word k). A kernel
// runs on such buffers through a mechanical rewrite of its one WGSL file, as half-params.ts does for
// `theta`:
//   * a read-only binding `b: array<f32>` becomes `array<u32>` and every `b[i]` load `b_at(i)`,
//     through unpack2x16float, which is exact;
//   * a read-write binding is written only through the kernel's `fn b_store2(i, v, n)` (the first n
//     of v's two values at elements i, i+1); the rewrite replaces that function with one that writes
//     the whole word i/2, rounding to nearest even (pack2x16float) with overflow to +-infinity from
//     65520 as cast_f32_to_f16.wgsl writes it. A thread thus always writes whole words, never half of
//     a word another thread writes: the host calls it with i even and, where the kernel stores a row
//     at a time, rows of even length (Conv2dLayer refuses an odd width).
// The arithmetic stays float32 inside each kernel; only what is stored is rounded.
import { storageBuffer } from './buffers.ts';
import type { DeviceContext } from './device-context.ts';
import { KERNELS, type KernelName } from './kernels.ts';
import type { MemoryCategory } from '../memory-categories.ts';
import { functionSpan, replaceIndexing } from './wgsl-rewrite.ts';
import { functionSource } from './shader-sources.ts';
import { bufferOf, type Operand } from './operand.ts';

const packed = new WeakSet<GPUBuffer>();

/** A zero-filled buffer of `elements` packed halves (ceil(elements / 2) words), marked as such. */
export function halfBuffer(gpu: DeviceContext, label: string, elements: number, category: MemoryCategory): GPUBuffer {
  const b = storageBuffer(gpu, label, Math.ceil(elements / 2) * 4, category);
  packed.add(b);
  return b;
}

/** Whether `b` was created by halfBuffer (holds packed halves, not float32). */
export function isHalfBuffer(b: Operand): boolean {
  return packed.has(bufferOf(b));
}

/** The names of the operands held as packed halves, for KernelCache.get (theta is ParamStorage's). */
export function halvesOf(operands: Readonly<Record<string, Operand | null | undefined>>): string[] {
  return Object.entries(operands)
    .filter(([name, b]) => name !== 'theta' && b && packed.has(bufferOf(b)))
    .map(([name]) => name)
    .sort();
}

/** `code` with line comments blanked (line numbers kept), so that prose naming `y[n,c]` is not rewritten. */
function withoutComments(code: string): string {
  return code.replace(/\/\/[^\n]*/g, '');
}

/**
 * cast_f32_to_f16.wgsl's `half_bits` (float32 to binary16 bits: round to nearest even, overflow to
 * infinity from 65520, every NaN the quiet 0x7e00), taken from that file, so that a packed
 * activation and a cast gradient round by one definition.
 */
function halfBits(): string {
  return `\n${functionSource('cast_f32_to_f16', 'half_bits')}\n`;
}

function usesIndexing(code: string, ident: string): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${ident}\\s*\\[`).test(code);
}

/**
 * `code` (kernel `name`'s WGSL) with the bindings in `halves` stored as packed halves. Throws,
 * naming the kernel and binding, where the kernel does not declare the binding as an f32 storage
 * array or writes it other than through its `<b>_store2`.
 */
export function halfActSource(name: KernelName, code: string, halves: readonly string[]): string {
  let out = withoutComments(code);
  const helpers: string[] = [];
  for (const b of halves) {
    const kind = KERNELS[name].bindings.find(([n]) => n === b)?.[1];
    if (b === 'theta' || (kind !== 'read' && kind !== 'read_write'))
      throw new Error(`kernel ${name} has no activation binding '${b}' to store as fp16`);
    const decl = `var<storage, ${kind}> ${b}: array<f32>;`;
    if (!out.includes(decl)) throw new Error(`kernel ${name} does not declare '${decl}'`);
    out = out.replace(decl, `var<storage, ${kind}> ${b}: array<u32>;`);
    if (kind === 'read') {
      out = replaceIndexing(out, b, `${b}_at`, name);
      helpers.push(`
fn ${b}_at(i: u32) -> f32 {
  let pair = unpack2x16float(${b}[i >> 1u]);
  return select(pair.x, pair.y, (i & 1u) == 1u);
}
`);
    } else {
      const store = `${b}_store2`;
      const span = functionSpan(out, store);
      if (!span) throw new Error(`kernel ${name} has no 'fn ${store}' through which '${b}' can be written as fp16`);
      out = out.slice(0, span[0]) + out.slice(span[1]);
      if (usesIndexing(out, b))
        throw new Error(`kernel ${name} accesses '${b}' outside ${store}, so it cannot be stored as fp16`);
      helpers.push(`
fn ${store}(i: u32, v: vec2f, n: u32) {
  ${b}[i >> 1u] = half_bits(v.x) | (select(0u, half_bits(v.y), n > 1u) << 16u);
}
`);
    }
  }
  if (halves.some((b) => KERNELS[name].bindings.some(([n, k]) => n === b && k === 'read_write')))
    helpers.push(halfBits());
  return out + helpers.join('');
}
