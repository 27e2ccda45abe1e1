// The sample ledger's arithmetic: an epoch stopped mid-way on W ranks and resumed on W' ranks uses
// every sample once (4 -> 2, 2 -> 3, and a chain 4 -> 2 -> 3), checked against an independent
// count of what each rank's batches hold; the same world size continues the same shards as
// DistributedSampler's; the ledger's hash is recomputed and a tampered ledger is caught.
import { describe, expect, it } from 'vitest';
import {
  dealShard,
  epochOrder,
  epochProof,
  ledgerAt,
  resumePlan,
  verifyLedger,
  type LedgerSampler,
} from '../../src/data/ledger.ts';
import { DistributedSampler } from '../../src/data/sampler.ts';

const sampler: LedgerSampler = { seed: 7, shuffle: true, dropLast: false };

/** What each rank trains: its shard's first `steps x perStep` positions (every rank alike). */
function trained(shards: readonly Int32Array[], from: number, to: number): number[] {
  return shards.flatMap((s) => [...s.subarray(from, to)]);
}

/** An epoch of n samples: `steps0` steps on w0 ranks, checkpoint, then the rest on w1; returns every index trained. */
async function resumeRun(n: number, w0: number, steps0: number, w1: number, perStep: number) {
  const epoch = 3;
  const shards0 = Array.from({ length: w0 }, (_, r) => {
    const s = new DistributedSampler(n, { numReplicas: w0, rank: r, seed: sampler.seed, shuffle: true });
    s.setEpoch(epoch);
    return s.indices();
  });
  const before = trained(shards0, 0, steps0 * perStep);
  const ledger = ledgerAt({ epoch, datasetSize: n, sampler }, [], { world: w0, steps: steps0 }, perStep);
  const plan = resumePlan(ledger, w1);
  const after = trained(plan.shards, w1 === w0 ? steps0 * perStep : 0, Infinity);
  return { ledger, plan, before, after };
}

function counts(n: number, xs: readonly number[]): Uint32Array {
  const c = new Uint32Array(n);
  for (const x of xs) c[x] = (c[x] ?? 0) + 1;
  return c;
}

describe('sample ledger: resume on another world size', () => {
  it('4 -> 2 ranks mid-epoch: every index of the epoch once, and the proof says so', async () => {
    const { ledger, plan, before, after } = await resumeRun(96, 4, 3, 2, 4); // 48 before, 48 after
    expect(ledger.segments).toEqual([{ world: 4, steps: 3, consumed: [12, 12, 12, 12] }]);
    expect(ledger.consumedCount).toBe(48);
    expect(plan.priorSteps).toBe(3);
    expect([...counts(96, [...before, ...after])].every((c) => c === 1)).toBe(true);
    // the new ranks deal the remaining order, in order: rank r takes positions r, r + 2, ...
    const order = epochOrder(96, sampler, 3);
    expect([...(plan.shards[0] ?? [])]).toEqual([...order.subarray(48)].filter((_, i) => i % 2 === 0));
    const proof = epochProof(ledger, plan.before, 2);
    expect(proof.text).toBe('epoch 3: 96 samples, each once; 48 before the checkpoint on 4 ranks, 48 after on 2');
    expect(verifyLedger(ledger)).toBeNull();
  });

  it('2 -> 3 ranks mid-epoch with a remainder: every index once, padding repeats only what DistributedSampler would', async () => {
    // 50 samples on 2 ranks of batch 4: 2 steps = 16 consumed; 34 left over 3 ranks: 12 each, 2 padded
    const { ledger, plan, before, after } = await resumeRun(50, 2, 2, 3, 4);
    const c = counts(50, [...before, ...after]);
    expect([...c].filter((x) => x === 0)).toHaveLength(0);
    expect([...c].filter((x) => x === 2)).toHaveLength(2);
    expect(plan.shards.map((s) => s.length)).toEqual([12, 12, 12]);
    const proof = epochProof(ledger, plan.before, 3);
    expect(proof).toMatchObject({ once: 48, repeated: 2, never: 0, before: 16, after: 36 });
    expect(proof.text).toBe(
      'epoch 3: 50 samples, 48 once, 2 twice (padding to a multiple of the ranks, as DistributedSampler); 16 before the checkpoint on 2 ranks, 36 after on 3',
    );
  });

  it('a chain 4 -> 2 -> 3: the second ledger carries both segments; still every index once', async () => {
    const n = 120;
    const first = await resumeRun(n, 4, 2, 2, 3); // 24 consumed on 4 ranks
    const second = ledgerAt({ epoch: 3, datasetSize: n, sampler }, first.plan.before, { world: 2, steps: 5 }, 3);
    expect(second.segments.map((s) => [s.world, s.steps, s.consumed[0]])).toEqual([
      [4, 2, 6],
      [2, 5, 15],
    ]);
    expect(second.consumedCount).toBe(54);
    const third = resumePlan(second, 3);
    expect(third.priorSteps).toBe(7);
    const on2 = trained(first.plan.shards, 0, 15);
    const all = [...first.before, ...on2, ...trained(third.shards, 0, Infinity)];
    expect([...counts(n, all)].every((x) => x === 1)).toBe(true);
    expect(epochProof(second, third.before, 3).text).toBe(
      'epoch 3: 120 samples, each once; 54 before the checkpoint on 4, then 2 ranks, 66 after on 3',
    );
  });

  it("the same world size continues the same shards (DistributedSampler's), so the run is the uninterrupted one", async () => {
    const { plan } = await resumeRun(64, 4, 2, 4, 4);
    expect(plan.priorSteps).toBe(0);
    for (let r = 0; r < 4; r++) {
      const s = new DistributedSampler(64, { numReplicas: 4, rank: r, seed: 7 });
      s.setEpoch(3);
      expect([...(plan.shards[r] ?? [])]).toEqual([...s.indices()]);
    }
    // drop_last deals as DistributedSampler(drop_last=True) does
    const order = epochOrder(10, { ...sampler, dropLast: true }, 0);
    expect([...dealShard(order, 3, 1, true)]).toEqual([order[1], order[4], order[7]]);
  });

  it('a ledger whose segments do not give its hash is caught', async () => {
    const l = ledgerAt({ epoch: 0, datasetSize: 40, sampler }, [], { world: 2, steps: 2 }, 4);
    expect(verifyLedger({ ...l, sampler: { ...sampler, seed: 8 } })).toMatch(
      /hash to [0-9a-f]{16}, the ledger records/,
    );
    expect(verifyLedger({ ...l, segments: [{ world: 2, steps: 2, consumed: [8, 7] }] })).toMatch(
      /consume 15 samples but the ledger records 16/,
    );
  });
});
