// Failure behaviour, on both transports: a neighbour that never sends surfaces as a CollectiveTimeoutError naming
// rank, peer, op and step; an abort, an error inside a collective, a mismatch or a closed port
// on one rank makes every other rank's collective reject naming the failed rank and the reason.
// Timeouts here are short on purpose; the vitest timeout only guards against hangs.
import { afterEach, describe, expect, it } from 'vitest';
import {
  broadcast,
  CollectiveMismatchError,
  CollectiveTimeoutError,
  createLink,
  createRingPorts,
  PeerFailedError,
  ringAllReduce,
} from '../../src/comm/index.ts';
import type { Link, TransferEvent, Transport } from '../../src/comm/index.ts';
import { closeAll, onAllRanks, RINGS } from './comm-harness.ts';

let links: Link[] = [];
afterEach(() => closeAll(links));

function reasons(outcomes: PromiseSettledResult<unknown>[]): unknown[] {
  return outcomes.map((o): unknown => (o.status === 'rejected' ? (o.reason as unknown) : 'fulfilled'));
}

const makers = Object.fromEntries(
  Object.entries(RINGS).map(([name, ring]) => [
    name,
    (w: number, timeoutMs: number, observer?: (e: TransferEvent) => void) =>
      Promise.resolve(ring(w, { timeoutMs, ...(observer ? { observer } : {}) })),
  ]),
);

describe('timeouts', () => {
  it.each(Object.keys(RINGS))(
    '%s: a rank whose neighbour never sends rejects with CollectiveTimeoutError; the others learn who failed',
    async (name) => {
      const ports = createRingPorts(3, name as Transport);
      links = ports.map((p, rank) => createLink({ rank, world: 3, timeoutMs: rank === 0 ? 100 : 20_000 }, p));
      // rank 2 never joins the collective
      const [r0, r1] = reasons(
        await onAllRanks(links.slice(0, 2), (l, r) => ringAllReduce(new Float32Array(10), r, 3, l)),
      );
      expect(r0).toBeInstanceOf(CollectiveTimeoutError);
      const t = r0 as CollectiveTimeoutError;
      expect([t.rank, t.peer, t.at.op, t.at.step, t.at.coll, t.timeoutMs]).toEqual([0, 2, 'allReduce', 0, 0, 100]);
      expect(t.message).toBe(
        'rank 0: timed out after 100 ms waiting for data from rank 2 in allReduce #0 step 0 slice 0',
      );
      expect(r1).toBeInstanceOf(PeerFailedError);
      expect((r1 as PeerFailedError).failedRank).toBe(2);
      expect((r1 as PeerFailedError).reportedBy).toBe(0);
      // the silent rank's link was poisoned too: its late collective fails at once instead of hanging
      const late = links[2];
      if (late === undefined) throw new Error('no link');
      await expect(ringAllReduce(new Float32Array(10), 2, 3, late)).rejects.toBeInstanceOf(PeerFailedError);
    },
  );

  for (const [name, make] of Object.entries(makers)) {
    it(`${name}: a broadcast to a rank that never receives still completes on the sender`, async () => {
      links = await make(2, 150);
      const root = links[0];
      if (root === undefined) throw new Error('no link');
      const err: unknown = await broadcast(new Float32Array(64 * 8), 0, 0, 2, root, { sliceElems: 64 }).then(
        () => 'fulfilled',
        (e: unknown) => e,
      );
      // MessagePort never blocks a sender: the root finishes, the receiver would time out
      expect(err).toBe('fulfilled');
    });
  }
});

for (const [name, make] of Object.entries(makers)) {
  describe(`abort propagation over ${name} links`, () => {
    it('an abort on rank 2 rejects every other rank, naming rank 2 and its reason; later collectives fail at once', async () => {
      links = await make(4, 20_000);
      const outcomes = await onAllRanks(links, async (l, r) => {
        if (r === 2) {
          l.abort(new Error('GPU device lost'));
          return 'aborted';
        }
        return ringAllReduce(new Float32Array(1000), r, 4, l, { sliceElems: 64 });
      });
      for (const r of [0, 1, 3]) {
        const e = reasons(outcomes)[r];
        expect(e).toBeInstanceOf(PeerFailedError);
        expect((e as PeerFailedError).failedRank).toBe(2);
        expect((e as PeerFailedError).message).toMatch(
          new RegExp(`^rank ${r}: collective aborted because rank 2 failed: Error: GPU device lost$`),
        );
      }
      const l0 = links[0];
      if (l0 === undefined) throw new Error('no link');
      await expect(ringAllReduce(new Float32Array(4), 0, 4, l0)).rejects.toThrow(/rank 2 failed/);
    });

    it('an error thrown inside a collective on one rank, part-way, aborts the group', async () => {
      const world = 4;
      const observer = (e: TransferEvent): void => {
        // rank 1 fails after its first chunk has arrived: its data is half-reduced, nobody may continue
        if (e.kind === 'recv' && e.to === 1) throw new Error('staging buffer lost');
      };
      links = await make(world, 20_000, observer);
      const errs = reasons(
        await onAllRanks(links, (l, r) => ringAllReduce(new Float32Array(100), r, world, l, { sliceElems: 16 })),
      );
      expect(String(errs[1])).toMatch(/staging buffer lost/);
      for (const r of [0, 2, 3]) expect(String(errs[r])).toMatch(/rank 1 failed: Error: staging buffer lost/);
    });

    it('a throw before any message (bad arguments on one rank) aborts the group too', async () => {
      links = await make(3, 20_000);
      const errs = reasons(
        await onAllRanks(links, (l, r) => broadcast(new Float32Array(10), r === 0 ? 7 : 0, r, 3, l)),
      );
      expect(String(errs[0])).toMatch(/root 7 is outside/);
      for (const r of [1, 2]) expect(String(errs[r])).toMatch(/rank 0 failed: RangeError: broadcast root 7/);
    });

    it('ranks that disagree on the length fail with a mismatch naming both fingerprints', async () => {
      links = await make(3, 20_000);
      const errs = reasons(
        await onAllRanks(links, (l, r) => ringAllReduce(new Float32Array(r === 1 ? 11 : 10), r, 3, l)),
      );
      const mismatch = errs.find((e) => e instanceof CollectiveMismatchError);
      expect(mismatch).toBeDefined();
      expect(String(mismatch)).toMatch(/allReduce\(n=1[01]\).*allReduce\(n=1[01]\)/);
      for (const e of errs) expect(e).toBeInstanceOf(Error);
    });
  });
}

describe('dead neighbour', () => {
  it.each(Object.entries(RINGS))(
    '%s: a rank whose ports close mid-collective (worker gone) fails the others without waiting for the timeout',
    async (_name, ring) => {
      links = ring(3, { timeoutMs: 60_000 });
      const t0 = performance.now();
      const outcomes = await onAllRanks(links, async (l, r) => {
        if (r === 2) {
          l.close();
          return 'closed';
        }
        return ringAllReduce(new Float32Array(300), r, 3, l, { sliceElems: 16 });
      });
      const errs = reasons(outcomes);
      expect(errs[0]).toBeInstanceOf(PeerFailedError);
      expect(String(errs[0])).toMatch(/rank 2 failed.*port from rank 2 closed/);
      expect(errs[1]).toBeInstanceOf(Error);
      expect(performance.now() - t0).toBeLessThan(30_000);
    },
  );
});
