// Reduce-scatter, all-gather, broadcast, barrier and the scalar all-reduce over real links in one
// thread, on both transports (MessagePort messages and shared-memory rings) with the same expected
// bits; two collectives in flight at once; the observer's transfer events.
import { afterEach, describe, expect, it } from 'vitest';
import {
  allGather,
  allReduceScalars,
  barrier,
  broadcast,
  chunkRange,
  createProcessGroup,
  createRingPorts,
  DEFAULT_RING_BYTES,
  reduceScatter,
  ringAllReduce,
} from '../../src/comm/index.ts';
import type { Link, TransferEvent, Transport } from '../../src/comm/index.ts';
import { baiduOrderSum, closeAll, firstBitDiff, onAllRanks, randomFloats, RINGS, values } from './comm-harness.ts';

let links: Link[] = [];
afterEach(() => closeAll(links));

const transports = Object.entries(RINGS).map(([name, ring]) => ({
  name: name as Transport,
  make: (w: number, observer?: (e: TransferEvent) => void) =>
    Promise.resolve(ring(w, { timeoutMs: 30_000, ...(observer ? { observer } : {}) })),
}));

for (const { name, make } of transports) {
  describe(`collectives over ${name} links`, () => {
    it('reduceScatter leaves chunk r of the sum on rank r, all-gather puts every chunk everywhere (W = 1..8, n = 0..2W+1)', async () => {
      for (let world = 1; world <= 8; world++) {
        links = await make(world);
        for (const n of [0, 1, world - 1, world + 1, 2 * world + 1, 3001]) {
          const inputs = Array.from({ length: world }, (_, r) => randomFloats(n, 31 * world + r + n));
          const sum = baiduOrderSum(inputs, 1);
          const bufs = inputs.map((x) => x.slice());
          const chunks = values(
            await onAllRanks(links, (l, r) =>
              reduceScatter(bufs[r] ?? new Float32Array(), r, world, l, { sliceElems: 100 }),
            ),
          );
          chunks.forEach((c, r) => {
            expect({ start: c.start, end: c.end }).toEqual(chunkRange(r, n, world));
            expect(firstBitDiff(c.chunk, sum.subarray(c.start, c.end))).toBe(-1);
          });
          // all-gather of each rank's own chunk r (its reduced chunk) rebuilds the full sum, identical everywhere
          await onAllRanks(links, (l, r) => allGather(bufs[r] ?? new Float32Array(), r, world, l, { sliceElems: 100 }));
          for (const b of bufs) expect(firstBitDiff(b, sum)).toBe(-1);
        }
        closeAll(links);
      }
    });

    it('broadcast from every root copies the root bits to all ranks (W = 1, 2, 3, 5, 8; multi-slice)', async () => {
      for (const world of [1, 2, 3, 5, 8]) {
        links = await make(world);
        for (let root = 0; root < world; root++) {
          const bufs = Array.from({ length: world }, (_, r) => randomFloats(1234, 7 * root + r));
          const want = bufs[root]?.slice() ?? new Float32Array();
          await onAllRanks(links, (l, r) =>
            broadcast(bufs[r] ?? new Float32Array(), root, r, world, l, { sliceElems: 100 }),
          );
          for (const b of bufs) expect(firstBitDiff(b, want)).toBe(-1);
        }
        closeAll(links);
      }
    });

    it('barrier: no rank leaves before the last one enters', async () => {
      const world = 5;
      links = await make(world);
      const entered: number[] = [];
      const enteredWhenLeaving: number[] = [];
      const late = new Promise<void>((resolve) => setTimeout(resolve, 50));
      values(
        await onAllRanks(links, async (l, r) => {
          if (r === 3) await late;
          entered.push(r);
          await barrier(r, world, l);
          enteredWhenLeaving.push(entered.length);
        }),
      );
      expect(entered.at(-1)).toBe(3);
      expect(enteredWhenLeaving).toEqual(Array(world).fill(world));
    });

    it('allReduceScalars: float64 sum in rank order, the same bits on every rank', async () => {
      const world = 6;
      links = await make(world);
      const vals = Array.from({ length: world }, (_, r) => [0.1 * (r + 1), 1e16 * (r % 2 === 0 ? 1 : -1), r + 0.5]);
      const outs = values(await onAllRanks(links, (l, r) => allReduceScalars(vals[r] ?? [], r, world, l)));
      const want = new Float64Array(3);
      for (const v of vals) v.forEach((x, j) => (want[j] = (want[j] ?? 0) + x));
      for (const o of outs) expect([...o]).toEqual([...want]);
    });

    it('two all-reduces and a broadcast in flight at once do not mix', async () => {
      const world = 4;
      links = await make(world);
      const a = Array.from({ length: world }, (_, r) => randomFloats(5000, r));
      const b = Array.from({ length: world }, (_, r) => randomFloats(3333, 100 + r));
      const c = Array.from({ length: world }, (_, r) => randomFloats(777, 200 + r));
      const [wantA, wantB, wantC] = [baiduOrderSum(a), baiduOrderSum(b), c[2]?.slice() ?? new Float32Array()];
      await onAllRanks(links, async (l, r) => {
        const opts = { sliceElems: 128 };
        const pa = ringAllReduce(a[r] ?? new Float32Array(), r, world, l, opts);
        const pb = ringAllReduce(b[r] ?? new Float32Array(), r, world, l, opts);
        const pc = broadcast(c[r] ?? new Float32Array(), 2, r, world, l, opts);
        await Promise.all([pa, pb, pc]);
      });
      for (let r = 0; r < world; r++) {
        expect(firstBitDiff(a[r] ?? new Float32Array(), wantA)).toBe(-1);
        expect(firstBitDiff(b[r] ?? new Float32Array(), wantB)).toBe(-1);
        expect(firstBitDiff(c[r] ?? new Float32Array(), wantC)).toBe(-1);
      }
    });

    it('stagingBytes reports the memory held for communication', async () => {
      links = await make(2);
      for (const l of links) {
        // messages: nothing pooled before the first message; shared: the ring this rank writes (and its header)
        expect(l.stagingBytes).toBe(name === 'message' ? 0 : DEFAULT_RING_BYTES + 64);
        expect(l.transport).toBe(name);
      }
    });

    it('reports every chunk transfer to the observer: 2(W-1) sends and receives per rank', async () => {
      const world = 3;
      const events: TransferEvent[] = [];
      links = await make(world, (e) => events.push(e));
      await onAllRanks(links, (l, r) => ringAllReduce(new Float32Array(10), r, world, l));
      expect(events).toHaveLength(2 * world * 2 * (world - 1));
      const sends = events.filter((e) => e.kind === 'send');
      for (const e of sends) expect(e.to).toBe((e.from + 1) % world);
      const rank0 = sends.filter((e) => e.from === 0).map((e) => [e.phase, e.step, e.chunk, e.bytes]);
      // chunks of 10 over 3 ranks: 4, 3, 3 elements
      expect(rank0).toEqual([
        ['reduce-scatter', 0, 0, 16],
        ['reduce-scatter', 1, 2, 12],
        ['all-gather', 2, 1, 12],
        ['all-gather', 3, 0, 16],
      ]);
      for (const e of events) expect(e.t).toBeGreaterThan(performance.timeOrigin);
    });
  });
}

describe('ProcessGroup (the facade a worker exposes)', () => {
  for (const { name } of transports) {
    it(`createProcessGroup wires a rank on the ${name} transport and runs every collective`, async () => {
      const world = 3;
      const ports = createRingPorts(world, name);
      const groups = ports.map((p, rank) => createProcessGroup({ rank, world, timeoutMs: 30_000 }, p));
      links = groups.map((g) => g.link);
      expect(links.map((l) => l.transport)).toEqual([name, name, name]);
      expect(groups.map((g) => [g.rank, g.world])).toEqual([0, 1, 2].map((r) => [r, world]));
      const inputs = Array.from({ length: world }, (_, r) => randomFloats(999, 900 + r));
      const out = await Promise.all(
        groups.map(async (g, r) => {
          const ar = (inputs[r] ?? new Float32Array()).slice();
          await g.allReduce(ar);
          const rs = (inputs[r] ?? new Float32Array()).slice();
          const mine = await g.reduceScatter(rs);
          await g.allGather(rs);
          const bc = (inputs[r] ?? new Float32Array()).slice();
          await g.broadcast(bc, 1);
          const sc = await g.allReduceScalars([r]);
          await g.barrier();
          return { ar, rs, bc, sc, mine };
        }),
      );
      for (const o of out) {
        expect(firstBitDiff(o.ar, baiduOrderSum(inputs))).toBe(-1);
        expect(firstBitDiff(o.rs, baiduOrderSum(inputs, 1))).toBe(-1);
        expect(firstBitDiff(o.bc, inputs[1] ?? new Float32Array())).toBe(-1);
        expect([...o.sc]).toEqual([3]);
      }
      expect(out.map((o) => [o.mine.start, o.mine.end])).toEqual([
        [0, 333],
        [333, 666],
        [666, 999],
      ]);
    });
  }
});
