// fp16 (and bfloat16) parameter storage for the layer kernels, without shader-f16: the same kernel with its
// read-only `theta: array<f32>` binding read as packed halves (two per u32, pack2x16float's order),
// each load through unpack2x16float, which is exact. The arithmetic stays float32, so the result is
// bit for bit the float32 kernel's on the half-rounded parameters (test/gpu/half-params.test.ts).
// One WGSL file per kernel still: this rewrites the file's loads, it adds no kernel.
import { KERNELS, type KernelName } from './kernels.ts';
import { replaceIndexing } from './wgsl-rewrite.ts';

/** How a kernel reads its parameters: float32, or packed halves (fp16 or bfloat16). */
export type ParamStorage = 'f32' | 'f16' | 'bf16';

/** theta_at for each 16-bit format: fp16 through unpack2x16float, bfloat16 by shifting its bits into a float32's upper half (exact). */
const THETA_AT = {
  f16: `fn theta_at(i: u32) -> f32 {
  let pair = unpack2x16float(theta[i >> 1u]);
  return select(pair.x, pair.y, (i & 1u) == 1u);
}
`,
  bf16: `fn theta_at(i: u32) -> f32 {
  let w = theta[i >> 1u];
  return bitcast<f32>(select(w << 16u, w & 0xffff0000u, (i & 1u) == 1u));
}
`,
} as const;

const DECL = 'var<storage, read> theta: array<f32>;';

/** Whether `name` reads parameters through a read-only `theta` binding (and so has an f16 form). */
export function readsTheta(name: KernelName): boolean {
  return KERNELS[name].bindings.some(([b, kind]) => b === 'theta' && kind === 'read');
}

/** `code` with every `theta[i]` read from packed halves of `format`. Throws if the kernel does not read theta as declared. */
export function halfThetaSource(name: KernelName, code: string, format: 'f16' | 'bf16' = 'f16'): string {
  if (!readsTheta(name) || !code.includes(DECL))
    throw new Error(`kernel ${name} has no read-only 'theta: array<f32>' binding to store as fp16`);
  const out = replaceIndexing(code.replace(DECL, 'var<storage, read> theta: array<u32>;'), 'theta', 'theta_at', name);
  return `${out}
${THETA_AT[format]}`;
}
