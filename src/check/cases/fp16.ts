// The fp16 storage kernels against the CPU codec (src/numeric/f16.ts): packing with
// round-to-nearest-even and explicit overflow, exact unpacking with a scale, the overflow flag, and
// all three in place (the round trip one worker's gradients take).
import { grid1d } from '../../gpu/op.ts';
import { f16Bits, packHalves, unpackHalves } from '../../numeric/f16.ts';
import { expectClose, expectTrue } from './close.ts';
import { randn, runOp } from './run-op.ts';
import type { OpCase } from './case.ts';

const N = 1003; // odd: the last word has an empty high half
const bits = (f: Float32Array) => new Uint32Array(f.buffer, f.byteOffset, f.length);

/** Values across the half's range: tiny (subnormal), ordinary, near and past 65504, infinities, NaN, ties. */
function mixed(n: number, seed: number): Float32Array {
  const x = randn(n, seed, 1);
  for (let i = 0; i < n; i++) {
    const v = x[i] ?? 0;
    x[i] = [v, v * 1e-5, v * 7e4, v * 1e3, v * 3e-7][i % 5] ?? v;
  }
  x.set([65504, 65519, 65520, -65520, Infinity, -Infinity, NaN, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 2 ** -25, -0], 0);
  return x;
}

export const fp16Cases = {
  cast_f32_to_f16: [
    {
      name: `[${N}] x0.5 from src[3:] to dst[2:] (subnormals, ties, overflow, inf, NaN)`,
      async run(gpu) {
        const src = mixed(N + 3, 201);
        const { dst } = await runOp(
          gpu,
          'cast_f32_to_f16',
          { count: N, s_off: 3, d_off: 2, scale: 0.5 },
          { src, dst: Math.ceil(N / 2) + 3 },
          (o) => grid1d(Math.ceil(N / 2), o.WG ?? 64),
        );
        const got = bits(dst!);
        const want = packHalves(src, 3, N, 0.5);
        expectTrue(got[0] === 0 && got[1] === 0, `words before dst[2:] changed: ${got[0]}, ${got[1]}`);
        expectTrue(got[2 + want.length] === 0, `the word after the output changed: ${got[2 + want.length]}`);
        const diff: string[] = [];
        for (let i = 0; i < want.length; i++)
          if (got[2 + i] !== want[i])
            diff.push(
              `word ${i}: ${got[2 + i]?.toString(16)} != ${want[i]?.toString(16)} (src ${src[3 + 2 * i]}, ${src[4 + 2 * i]})`,
            );
        expectTrue(diff.length === 0, `${diff.length} packed words differ: ${diff.slice(0, 4).join('; ')}`);
      },
    },
  ],
  cast_f16_to_f32: [
    {
      name: `[${N}] /1024 from word 1 to dst[4:]`,
      async run(gpu) {
        const values = mixed(N, 202);
        const words = new Uint32Array(Math.ceil(N / 2) + 1);
        words.set(packHalves(values, 0, N), 1);
        const dst0 = randn(N + 6, 203);
        const { dst } = await runOp(
          gpu,
          'cast_f16_to_f32',
          { count: N, s_off: 1, d_off: 4, scale: 1 / 1024 },
          { src: words, dst: dst0 },
          (o) => grid1d(N, o.WG ?? 64),
        );
        const want = unpackHalves(words.subarray(1), N, 1 / 1024);
        // finite values exactly; infinities and NaN by their bits (inf * scale stays inf)
        expectClose(
          'dst',
          dst!.subarray(4, 4 + N).map((v, i) => (Number.isFinite(want[i]!) ? v : 0)),
          want.map((v) => (Number.isFinite(v) ? v : 0)),
          { rtol: 0, atol: 0 },
        );
        for (let i = 0; i < N; i++)
          if (!Number.isFinite(want[i]!))
            expectTrue(f16Bits(dst![4 + i]!) === f16Bits(want[i]!), `dst[${4 + i}] = ${dst![4 + i]}, not ${want[i]}`);
        expectClose(
          'dst outside [4, 4 + N)',
          [...dst!.subarray(0, 4), ...dst!.subarray(4 + N)],
          [...dst0.subarray(0, 4), ...dst0.subarray(4 + N)],
          { rtol: 0, atol: 0 },
        );
      },
    },
  ],
  f16_overflow: [
    {
      name: `[${N}] finite, one inf, one NaN, and a non-finite half outside the range`,
      async run(gpu) {
        const flagOf = async (values: Float32Array, count: number, offset: number) => {
          const words = packHalves(values);
          const { flag } = await runOp(gpu, 'f16_overflow', { count, offset }, { data: words, flag: 1 }, (o) =>
            grid1d(Math.ceil(count / 2), o.WG ?? 64),
          );
          return bits(flag!)[0];
        };
        const ok = randn(N + 10, 204, 100);
        expectTrue((await flagOf(ok, N, 0)) === 0, 'flag set for finite halves');
        const inf = ok.slice();
        inf[777] = 70000;
        expectTrue((await flagOf(inf, N, 0)) === 1, 'flag not set for an infinite half');
        const nan = ok.slice();
        nan[N - 1] = NaN; // the odd tail's live half
        expectTrue((await flagOf(nan, N, 0)) === 1, 'flag not set for a NaN in the odd tail');
        const outside = ok.slice();
        outside[N] = Infinity; // the odd tail's dead half, and words before offset, are not looked at
        outside[0] = Infinity;
        expectTrue((await flagOf(outside, N - 2, 1)) === 0, 'flag set by a half outside the range');
      },
    },
  ],
  f16_round_trip: [
    {
      name: `[${N}] x1/512 in place from data[3:] (subnormals, ties, overflow, inf, NaN), flag`,
      async run(gpu) {
        // the CPU reference: cast_f32_to_f16 at scale 1, then cast_f16_to_f32 at the scale
        const roundTrip = (values: Float32Array, off: number, count: number, scale: number) =>
          unpackHalves(packHalves(values, off, count), count, scale);
        const sameBits = (got: Float32Array, want: Float32Array, what: string) => {
          const diff: string[] = [];
          for (let i = 0; i < want.length; i++) {
            const [g, w] = [got[i]!, want[i]!];
            const same = Number.isNaN(w) ? Number.isNaN(g) : Object.is(g, w);
            if (!same) diff.push(`${what}[${i}] = ${g}, not ${w}`);
          }
          expectTrue(diff.length === 0, `${diff.length} values differ: ${diff.slice(0, 4).join('; ')}`);
        };
        const run = async (values: Float32Array, count: number, offset: number, scale: number) => {
          const { data, flag } = await runOp(
            gpu,
            'f16_round_trip',
            { count, offset, scale },
            { data: values, flag: 1 },
            (o) => grid1d(count, o.WG ?? 64),
          );
          return { data: data!, flag: bits(flag!)[0] };
        };
        const mixedValues = mixed(N + 5, 205);
        const r = await run(mixedValues, N, 3, 1 / 512);
        sameBits(r.data.subarray(3, 3 + N), roundTrip(mixedValues, 3, N, 1 / 512), 'data[3:]');
        sameBits(r.data.subarray(0, 3), mixedValues.subarray(0, 3), 'data before offset');
        sameBits(r.data.subarray(3 + N), mixedValues.subarray(3 + N), 'data after count');
        expectTrue(r.flag === 1, 'flag not set for inf and NaN halves');
        const ok = randn(N + 2, 206, 100);
        // a scale that is no power of two (a static loss scale of 3), as the GPU holds it: float32
        const third = Math.fround(1 / 3);
        const finite = await run(ok, N, 1, third);
        expectTrue(finite.flag === 0, 'flag set for finite halves');
        sameBits(finite.data.subarray(1, 1 + N), roundTrip(ok, 1, N, third), 'data[1:] (finite, x1/3)');
        const outside = ok.slice();
        outside[0] = Infinity; // before offset: not looked at
        outside[N + 1] = 70000; // past count
        expectTrue((await run(outside, N, 1, 1)).flag === 0, 'flag set by a value outside the range');
      },
    },
  ],
} satisfies Record<string, readonly OpCase[]>;
