// The ceilings `webddp bench --profile` measures each kernel's TFLOP/s against, in the same run on
// the same device: C = A B for square n x n matrices through
//   * fp32: shaders/matmul_f32.wgsl, a plain WGSL matmul (64 x 64 tiles in workgroup memory, 4 x 4
//     outputs per invocation: the CUDA cores, the form of the layers' float32 kernels);
//   * f16 subgroup matrices: shaders/matmul_f16_sgmat.wgsl, f16 x f16 -> f32 16x16x16 (the tensor
//     cores; one subgroup per workgroup with 4 x 4 accumulators, operands straight from storage),
//     where the device has them (Gpu.halfMatrix).
// n is 4096 on a GPU and 256 on a software adapter (SwiftShader does 1-2 GFLOP/s: a few dispatches
// then take well under a second). Each ceiling is the mean of `reps` dispatches after one warm-up,
// timed by GPU timestamps where the device has them, else by the wall clock of one submit.
import { bufferFrom, readFloats, storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { KERNELS, type KernelName, type KernelSpec } from '../gpu/kernels.ts';
import { makeOp, type Op } from '../gpu/op.ts';
import { Recorder } from '../gpu/recorder.ts';
import { Timer } from '../gpu/timer.ts';
import { packHalves } from '../numeric/f16.ts';

/** What a kernel computes in: float32 arithmetic, or f16 x f16 -> f32 subgroup matrices. */
export type Arithmetic = 'fp32' | 'f16-matrix';

export interface MatmulCeiling {
  readonly arithmetic: Arithmetic;
  readonly kernel: 'matmul_f32' | 'matmul_f16_sgmat';
  readonly n: number;
  /** Mean GPU ms of one n x n x n product. */
  readonly ms: number;
  readonly tflops: number;
  readonly timing: 'gpu-timestamps' | 'wall-clock';
}

export interface Ceilings {
  readonly fp32: MatmulCeiling;
  /** null where the device has no f16 subgroup matrices (`f16MatrixMissing` says why). */
  readonly f16Matrix: MatmulCeiling | null;
  readonly f16MatrixMissing?: string;
}

const KERNEL: Readonly<Record<Arithmetic, MatmulCeiling['kernel']>> = {
  fp32: 'matmul_f32',
  'f16-matrix': 'matmul_f16_sgmat',
};

/** The matrix size for this device: 4096 on a GPU, 256 on a software adapter. */
export function ceilingSize(gpu: Gpu): number {
  return gpu.adapter.fallback ? 256 : 4096;
}

/** What a kernel computes in, from its registry entry: the `*_sgmat` kernels need subgroup matrices. */
export function arithmeticOf(kernel: KernelName): Arithmetic {
  return (KERNELS[kernel] as KernelSpec).requires === 'chromium-experimental-subgroup-matrix' ? 'f16-matrix' : 'fp32';
}

/** n x n values in [-1, 1) from a fixed linear congruential sequence. */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 4294967296) * 2 - 1;
  }
  return out;
}

/** A product's op on its own buffers (A and B as float32 values; halves for the subgroup-matrix form). */
class Product {
  private constructor(
    readonly op: Op,
    private readonly gpu: Gpu,
    readonly c: GPUBuffer,
    private readonly buffers: readonly GPUBuffer[],
  ) {}

  static async create(gpu: Gpu, arithmetic: Arithmetic, n: number, a: Float32Array, b: Float32Array) {
    if (!Number.isInteger(n) || n <= 0 || n % 64 !== 0)
      throw new RangeError(`matmul ceiling: n must be a positive multiple of 64 (got ${n})`);
    if (a.length !== n * n || b.length !== n * n)
      throw new RangeError(`matmul ceiling: A and B must hold ${n} x ${n} values`);
    const name = KERNEL[arithmetic];
    const half = arithmetic === 'f16-matrix';
    const kernel = await gpu.kernels.get(name, half ? { SG: gpu.subgroupSize } : {});
    const upload = (label: string, v: Float32Array) => bufferFrom(gpu, label, half ? packHalves(v) : v, 'other');
    const ab = upload('ceiling.a', a);
    const bb = upload('ceiling.b', b);
    const c = storageBuffer(gpu, 'ceiling.c', n * n * 4, 'other');
    const op = makeOp(gpu, kernel, `ceiling.${name}`, { n }, { a: ab, b: bb, c }, [n / 64, n / 64, 1]);
    return new Product(op, gpu, c, [ab, bb, c]);
  }

  destroy(): void {
    this.op.destroy();
    for (const b of this.buffers) this.gpu.memory.destroy(b);
  }
}

/** C = A B through the ceiling kernel of `arithmetic` (A and B rounded to halves for f16-matrix). */
export async function ceilingProduct(
  gpu: Gpu,
  arithmetic: Arithmetic,
  n: number,
  a: Float32Array,
  b: Float32Array,
): Promise<Float32Array> {
  const p = await Product.create(gpu, arithmetic, n, a, b);
  try {
    const rec = new Recorder(gpu, 'ceiling.product');
    rec.dispatch(p.op);
    rec.submit();
    return await readFloats(gpu, p.c);
  } finally {
    p.destroy();
  }
}

async function measure(gpu: Gpu, arithmetic: Arithmetic, n: number, reps: number): Promise<MatmulCeiling> {
  const p = await Product.create(gpu, arithmetic, n, values(n * n, 1), values(n * n, 2));
  try {
    const warm = new Recorder(gpu, 'ceiling.warmup');
    warm.dispatch(p.op);
    warm.submit();
    await gpu.device.queue.onSubmittedWorkDone();
    let ms: number;
    let timing: MatmulCeiling['timing'];
    if (gpu.hasTimestamps) {
      const timer = new Timer(gpu, reps);
      const rec = new Recorder(gpu, 'ceiling', timer, true);
      for (let i = 0; i < reps; i++) rec.dispatch(p.op);
      rec.submit();
      ms = ((await timer.read())[p.op.label] ?? NaN) / reps;
      timer.destroy();
      timing = 'gpu-timestamps';
    } else {
      const t0 = performance.now();
      const rec = new Recorder(gpu, 'ceiling');
      for (let i = 0; i < reps; i++) rec.dispatch(p.op);
      rec.submit();
      await gpu.device.queue.onSubmittedWorkDone();
      ms = (performance.now() - t0) / reps;
      timing = 'wall-clock';
    }
    return { arithmetic, kernel: KERNEL[arithmetic], n, ms, tflops: (2 * n ** 3) / ms / 1e9, timing };
  } finally {
    p.destroy();
  }
}

/** Both ceilings on `gpu` (the f16 one where the device has f16 subgroup matrices). */
export async function measureCeilings(
  gpu: Gpu,
  o: { readonly n?: number; readonly reps?: number } = {},
): Promise<Ceilings> {
  const n = o.n ?? ceilingSize(gpu);
  const reps = o.reps ?? (gpu.adapter.fallback ? 2 : 20);
  const fp32 = await measure(gpu, 'fp32', n, reps);
  if (!gpu.halfMatrix)
    return {
      fp32,
      f16Matrix: null,
      f16MatrixMissing: `the device (${gpu.adapter.description || gpu.adapter.vendor}) has no shader-f16 with f16 x f16 -> f32 16x16x16 subgroup matrices`,
    };
  return { fp32, f16Matrix: await measure(gpu, 'f16-matrix', n, reps) };
}

/** One line per ceiling, e.g. "fp32 ceiling: matmul_f32, 4096^3 in 6.33 ms, 21.7 TFLOP/s (GPU timestamps)". */
export function formatCeilings(c: Ceilings): string {
  const line = (what: string, m: MatmulCeiling) =>
    `${what} ceiling: ${m.kernel}, ${m.n}^3 in ${m.ms.toFixed(3)} ms, ${m.tflops.toPrecision(3)} TFLOP/s (${m.timing === 'gpu-timestamps' ? 'GPU timestamps' : 'wall clock'})`;
  return [
    line('fp32', c.fp32),
    c.f16Matrix
      ? line('f16 subgroup-matrix', c.f16Matrix)
      : `f16 subgroup-matrix ceiling: none (${c.f16MatrixMissing})`,
  ].join('\n');
}
