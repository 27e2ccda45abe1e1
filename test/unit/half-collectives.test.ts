// The ring collectives on packed fp16 pairs (fp16_compress_hook's all-reduce at half the bytes):
// every sum is an IEEE half addition in the ring's order, every rank ends with the same bits, the
// copies keep every bit (NaN payloads too), and a transfer carries 2 bytes per value.
import { afterEach, describe, expect, it } from 'vitest';
import { allGather, chunkRange, reduceScatter, ringAllReduce } from '../../src/comm/index.ts';
import type { Link, TransferEvent } from '../../src/comm/index.ts';
import { halvesView } from '../../src/comm/collectives.ts';
import { bf16Bits, bf16Value, packBf16 } from '../../src/numeric/bf16.ts';
import { f16Bits, f16Value, packHalves } from '../../src/numeric/f16.ts';
import { closeAll, onAllRanks, portRing, randomFloats, values } from './comm-harness.ts';

let links: Link[] = [];
afterEach(() => closeAll(links));

/** How a 16-bit format reads and rounds: bits -> value, value -> bits. */
interface Codec {
  value(bits: number): number;
  bits(value: number): number;
}
const F16: Codec = { value: (b) => f16Value(b & 0xffff), bits: f16Bits };
const BF16: Codec = { value: bf16Value, bits: bf16Bits };

/**
 * Word i's 16-bit pairs summed over ranks in the ring's order from rank `first + c` (chunk c),
 * rounded to the format after each addition.
 */
function ringOrderSum(inputs: Uint32Array[], first: number, codec: Codec): Uint32Array {
  const world = inputs.length;
  const n = inputs[0]?.length ?? 0;
  const out = new Uint32Array(n);
  for (let c = 0; c < world; c++) {
    const { start, end } = chunkRange(c, n, world);
    for (let i = start; i < end; i++) {
      let word = 0;
      for (const shift of [0, 16]) {
        const h = (r: number) => codec.value((inputs[(c + first + r) % world]?.[i] ?? 0) >>> shift);
        let s = codec.bits(h(0));
        for (let k = 1; k < world; k++) s = codec.bits(codec.value(s) + h(k));
        word |= s << shift;
      }
      out[i] = word >>> 0;
    }
  }
  return out;
}

describe('fp16 ring collectives', () => {
  it('all-reduce: half sums in ring order, identical on every rank, 4 bytes per pair (W = 2, 3, 5)', async () => {
    for (const world of [2, 3, 5]) {
      const sent: TransferEvent[] = [];
      links = portRing(world, { timeoutMs: 30_000, observer: (e) => void (e.kind === 'send' && sent.push(e)) });
      const n = 1001;
      // magnitudes up to 2^10 so some sums overflow past 65504 only when scaled: mix in a few large ones
      const inputs = Array.from({ length: world }, (_, r) =>
        packHalves(randomFloats(2 * n, 91 + r).map((v, i) => (i % 97 === 0 ? v * 6e4 : v))),
      );
      const want = ringOrderSum(inputs, 0, F16);
      const bufs = inputs.map((x) => x.slice());
      await onAllRanks(links, (l, r) =>
        ringAllReduce(halvesView(bufs[r] ?? new Uint32Array()), r, world, l, { halves: true, sliceElems: 100 }),
      ).then(values);
      for (const b of bufs) expect([...b]).toEqual([...want]);
      // every rank sends W-1 chunks in each phase: 2(W-1) n words of 4 bytes for 2n values, where
      // float32 would send 2(W-1) 2n elements of 4 bytes
      const total = sent.reduce((a, e) => a + e.bytes, 0);
      expect(total).toBe(2 * (world - 1) * n * 4);
      closeAll(links);
    }
  });

  it('reduce-scatter then all-gather of halves: chunk r summed on rank r, every bit copied', async () => {
    const world = 3;
    links = portRing(world, { timeoutMs: 30_000 });
    const n = 700;
    const inputs = Array.from({ length: world }, (_, r) => packHalves(randomFloats(2 * n, 7 + r)));
    inputs[1]![5] = 0x7d017c01; // signalling-NaN payloads in both halves survive the copies
    const want = ringOrderSum(inputs, 1, F16);
    const bufs = inputs.map((x) => x.slice());
    const chunks = values(
      await onAllRanks(links, (l, r) =>
        reduceScatter(halvesView(bufs[r] ?? new Uint32Array()), r, world, l, { halves: true, sliceElems: 64 }),
      ),
    );
    chunks.forEach((c, r) => expect({ start: c.start, end: c.end }).toEqual(chunkRange(r, n, world)));
    // the owner of word 5 gathers a NaN word: which one is the sum's business; it is copied as is
    await onAllRanks(links, (l, r) => allGather(halvesView(bufs[r] ?? new Uint32Array()), r, world, l)).then(values);
    for (const b of bufs) expect([...b]).toEqual([...want]);
  });

  it('refuses to average halves', async () => {
    links = portRing(2, { timeoutMs: 5_000 });
    const out = await onAllRanks(links, (l, r) =>
      ringAllReduce(halvesView(new Uint32Array(4)), r, 2, l, { halves: true, average: true }),
    );
    for (const o of out) expect(o.status === 'rejected' && String(o.reason)).toMatch(/average is not defined for fp16/);
  });
});

describe('bf16 ring collectives', () => {
  it('all-reduce and reduce-scatter: bfloat16 sums in ring order, identical on every rank (W = 2, 3)', async () => {
    for (const world of [2, 3]) {
      links = portRing(world, { timeoutMs: 30_000 });
      const n = 501;
      const inputs = Array.from({ length: world }, (_, r) => packBf16(randomFloats(2 * n, 191 + r)));
      const want = ringOrderSum(inputs, 0, BF16);
      const bufs = inputs.map((x) => x.slice());
      await onAllRanks(links, (l, r) =>
        ringAllReduce(halvesView(bufs[r] ?? new Uint32Array()), r, world, l, { bf16: true, sliceElems: 100 }),
      ).then(values);
      for (const b of bufs) expect([...b]).toEqual([...want]);
      const scattered = inputs.map((x) => x.slice());
      const chunks = await onAllRanks(links, (l, r) =>
        reduceScatter(halvesView(scattered[r] ?? new Uint32Array()), r, world, l, { bf16: true }),
      ).then(values);
      for (const [r, c] of chunks.entries()) {
        const w = new Uint32Array(c.chunk.buffer, c.chunk.byteOffset, c.chunk.length);
        expect([...w], `rank ${r}`).toEqual([...ringOrderSum(inputs, 1, BF16).subarray(c.start, c.end)]);
      }
      closeAll(links);
    }
  });
});
