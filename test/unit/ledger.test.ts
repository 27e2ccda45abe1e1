// The sample ledger's arithmetic: an epoch stopped mid-way on W ranks and resumed on W' ranks uses
// every sample once (4 -> 2, 2 -> 3, and a chain 4 -> 2 -> 3), checked against an independent
// count of what each rank's batches hold; the same world size continues the same shards as
// DistributedSampler's; the ledger's hash is recomputed and a tampered ledger is caught; trainer.json's
// ledger section round-trips and every field is checked, naming it.
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
import { encodeCheckpoint, readTrainerJson, type Snapshot } from '../../src/checkpoint/checkpoint.ts';
import { tensorsDataset } from '../../src/checkpoint/dataset-record.ts';
import { DEFAULT_CONFIG } from '../../src/config.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

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

describe("trainer.json's ledger section", () => {
  const spec = simpleCnnSpec(0.125);
  const config = { ...DEFAULT_CONFIG, width: 0.125, workers: 4, batchSize: 4, seed: 7 };
  const ledger = ledgerAt(
    { epoch: 1, datasetSize: 96, sampler: { seed: 7, shuffle: true, dropLast: false } },
    [],
    { world: 4, steps: 3 },
    4,
  );
  const snap: Snapshot = {
    config,
    position: { epoch: 1, step: 3, globalStep: 9, stepsPerEpoch: 6, ledger },
    params: new Float32Array(spec.total),
    optimizer: null,
  };
  async function trainerJson(): Promise<Record<string, unknown>> {
    const files = await encodeCheckpoint(snap, spec, tensorsDataset(new Int32Array(96)));
    return JSON.parse(new TextDecoder().decode(files['trainer.json'])) as Record<string, unknown>;
  }
  const read = (j: Record<string, unknown>) =>
    readTrainerJson(new TextEncoder().encode(JSON.stringify(j)), 'ck/trainer.json');

  it('round-trips in the position', async () => {
    expect(read(await trainerJson()).position.ledger).toEqual(ledger);
  });

  it.each([
    ['an unknown field', (l: Record<string, unknown>) => ({ ...l, extra: 1 }), /ledger has unknown field\(s\) extra/],
    [
      'another epoch',
      (l: Record<string, unknown>) => ({ ...l, epoch: 0 }),
      /ledger\.epoch 0 is not the checkpoint's epoch 1/,
    ],
    [
      "a sampler not the config's",
      (l: Record<string, unknown>) => ({ ...l, sampler: { seed: 8, shuffle: true, dropLast: false } }),
      /ledger\.sampler .* is not the config's \(seed 7/,
    ],
    [
      'a count per rank missing',
      (l: Record<string, unknown>) => ({ ...l, segments: [{ world: 4, steps: 3, consumed: [12, 12, 12] }] }),
      /ledger\.segments\[0\]\.consumed must hold one count per rank \(4\)/,
    ],
    [
      "steps that are not the checkpoint's",
      (l: Record<string, unknown>) => ({ ...l, segments: [{ world: 4, steps: 2, consumed: [12, 12, 12, 12] }] }),
      /ledger\.segments run 2 steps but the checkpoint is at step 3/,
    ],
    [
      'consumed samples that do not give its hash',
      (l: Record<string, unknown>) => ({ ...l, segments: [{ world: 4, steps: 3, consumed: [12, 12, 12, 11] }] }),
      /ledger: the segments consume 47 samples but the ledger records 48/,
    ],
    [
      'a hash that is not hex',
      (l: Record<string, unknown>) => ({ ...l, consumedHash: 'x' }),
      /ledger\.consumedHash must be 16 hex/,
    ],
  ])('refuses %s, naming the field', async (_what, change, message) => {
    const j = await trainerJson();
    j.ledger = change(j.ledger as Record<string, unknown>);
    expect(() => read(j)).toThrow(message);
  });
});
