// The bfloat16 storage kernels against the CPU codec (src/numeric/bf16.ts), bit for bit:
// packing with round-to-nearest-even (ties, overflow to infinity, NaN, subnormals, with and
// without a scale), exact widening with a scale, and both in place (one worker's gradients).
import { grid1d } from '../../gpu/op.ts';
import { bf16Round, packBf16, unpackBf16 } from '../../numeric/bf16.ts';
import { expectTrue } from './close.ts';
import { randn, runOp } from './run-op.ts';
import type { OpCase } from './case.ts';

const N = 1003; // odd: the last word has an empty high half
const bits = (f: Float32Array) => new Uint32Array(f.buffer, f.byteOffset, f.length);

/** Values across bfloat16's range: ordinary, tiny, subnormal, huge, ties, infinities, NaN. */
function mixed(n: number, seed: number): Float32Array {
  const x = randn(n, seed, 1);
  for (let i = 0; i < n; i++) {
    const v = x[i] ?? 0;
    x[i] = [v, v * 1e-30, v * 1e-39, v * 1e37, v * 3e-3][i % 5] ?? v;
  }
  const ties = [1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.4028234663852886e38, 2 ** -134, 3 * 2 ** -134];
  x.set([...ties, Infinity, -Infinity, NaN, -0], 0);
  return x;
}

/** The differing words of two packed arrays, described. */
function diffWords(got: Uint32Array, want: Uint32Array, at: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < want.length; i++)
    if (got[at + i] !== want[i]) out.push(`word ${i}: ${got[at + i]?.toString(16)} != ${want[i]?.toString(16)}`);
  return out;
}

export const bf16Cases = {
  cast_f32_to_bf16: [1, 0.5].map((scale): OpCase => ({
    name: `[${N}] x${scale} from src[3:] to dst[2:] (ties, subnormals, overflow, inf, NaN)`,
    async run(gpu) {
      // with a scale, no subnormal inputs: the product may flush to zero on a GPU
      const src = mixed(N + 3, 211).map((v) => (scale !== 1 && v !== 0 && Math.abs(v) < 2 ** -120 ? 1 : v));
      const { dst } = await runOp(
        gpu,
        'cast_f32_to_bf16',
        { count: N, s_off: 3, d_off: 2, scale },
        { src, dst: Math.ceil(N / 2) + 3 },
        (o) => grid1d(Math.ceil(N / 2), o.WG ?? 64),
      );
      const got = bits(dst!);
      const want = packBf16(src, 3, N, scale);
      expectTrue(got[0] === 0 && got[1] === 0, `words before dst[2:] changed: ${got[0]}, ${got[1]}`);
      expectTrue(got[2 + want.length] === 0, `the word after the output changed: ${got[2 + want.length]}`);
      const diff = diffWords(got, want, 2);
      expectTrue(diff.length === 0, `${diff.length} packed words differ: ${diff.slice(0, 4).join('; ')}`);
    },
  })),
  cast_bf16_to_f32: [1, 1 / 1024].map((scale): OpCase => ({
    name: `[${N}] x${scale} from word 1 to dst[4:]`,
    async run(gpu) {
      const values = mixed(N, 212).map((v) => (scale !== 1 && Math.abs(v) < 2 ** -100 ? bf16Round(v * 2 ** 40) : v));
      const words = new Uint32Array(Math.ceil(N / 2) + 1);
      words.set(packBf16(values, 0, N), 1);
      const dst0 = randn(N + 6, 213);
      const { dst } = await runOp(
        gpu,
        'cast_bf16_to_f32',
        { count: N, s_off: 1, d_off: 4, scale },
        { src: words, dst: dst0 },
        (o) => grid1d(N, o.WG ?? 64),
      );
      const got = bits(dst!);
      const want = bits(unpackBf16(words.subarray(1), N, scale));
      // A scaled NaN is any NaN: WGSL leaves the payload of arithmetic on NaN to the implementation
      // (the H200 gives 0x7fffffff, JavaScript 0x7fc00000); unscaled, the bits are copied exactly.
      const nan = (w: number | undefined) => w !== undefined && (w & 0x7f800000) === 0x7f800000 && (w & 0x7fffff) !== 0;
      const same = (g: number | undefined, w: number | undefined) => g === w || (scale !== 1 && nan(g) && nan(w));
      const diff: string[] = [];
      for (let i = 0; i < N; i++)
        if (!same(got[4 + i], want[i]))
          diff.push(`dst[${4 + i}]: ${got[4 + i]?.toString(16)} != ${want[i]?.toString(16)}`);
      expectTrue(diff.length === 0, `${diff.length} values differ: ${diff.slice(0, 4).join('; ')}`);
      const before = bits(dst0);
      for (const i of [0, 1, 2, 3, N + 4, N + 5])
        expectTrue(got[i] === before[i], `dst[${i}] outside the output changed`);
    },
  })),
  bf16_round_trip: [
    {
      name: `[${N}] in place from data[3:] (ties, subnormals, overflow, inf, NaN)`,
      async run(gpu) {
        const values = mixed(N + 5, 214);
        const { data } = await runOp(gpu, 'bf16_round_trip', { count: N, offset: 3 }, { data: values }, (o) =>
          grid1d(N, o.WG ?? 64),
        );
        // the CPU reference: packed and widened at scale 1, compared as bits
        const want = bits(unpackBf16(packBf16(values, 3, N), N));
        const got = bits(data!);
        const diff: string[] = [];
        for (let i = 0; i < N; i++)
          if (got[3 + i] !== want[i])
            diff.push(`data[${3 + i}]: ${got[3 + i]?.toString(16)} != ${want[i]?.toString(16)}`);
        expectTrue(diff.length === 0, `${diff.length} values differ: ${diff.slice(0, 4).join('; ')}`);
        const untouched = [0, 1, 2, N + 3, N + 4].filter((i) => got[i] !== bits(values)[i]);
        expectTrue(untouched.length === 0, `values outside [3, 3 + ${N}) changed: ${untouched.join(', ')}`);
      },
    },
  ],
} satisfies Record<string, readonly OpCase[]>;
