// Mid-epoch resume on another world size: ZeRO-2 on 4 ranks stops after 2 of its 4 steps (32
// synthetic records, batch 2 per rank); the checkpoint, through trainer.json's bytes, resumes on 2
// ranks, which train the 16 records no rank had consumed (their shards come from the ledger), and
// the run proves it. Checked independently: the records each rank's batches held before (the first
// 2 steps of the 4 shards) and after (the 2 new shards) cover every record of the epoch once.
// Real worker threads on Dawn, the optimizer's shards gathered from 4 ranks and re-cut for 2.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint, type Snapshot } from '../../src/checkpoint/checkpoint.ts';
import { tensorsDataset } from '../../src/checkpoint/dataset-record.ts';
import { split } from '../../src/check/learn.ts';
import { generateSynthetic } from '../../src/data/synthetic.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { parseConfig } from '../../src/parallel/index.ts';
import { Coordinator } from '../../src/runtime/coordinator.ts';
import type { TrainEvent } from '../../src/runtime/events.ts';
import { nodeSpawner } from '../../src/runtime/spawn-node.ts';

const spawn = nodeSpawner(pathToFileURL(resolve('dist-cli/rank-worker.mjs')), 'auto');
const data = split(generateSynthetic({ seed: 11, train: 32, test: 0 }).train);
const base = { mode: 'zero2', batchSize: 2, epochs: 1, optimizer: 'sgd', momentum: 0.9, width: 0.25, checkEvery: 0 };

async function events(c: Coordinator, run: Parameters<Coordinator['run']>[0] = {}): Promise<TrainEvent[]> {
  const out: TrainEvent[] = [];
  try {
    for await (const e of c.run(run)) out.push(e);
  } finally {
    await c.close();
  }
  return out;
}

describe('resume mid-epoch on another world size (4 -> 2 ranks, ZeRO-2)', () => {
  it('the 2 ranks train exactly the records the 4 had not, and the ledger proves each once', async () => {
    const config4 = parseConfig({ ...base, workers: 4 });
    const saved: Snapshot[] = [];
    const first = await events(
      await Coordinator.start({ config: config4, data: { kind: 'tensors', ...data }, spawn }),
      { checkpoint: { every: 2, save: async (s) => (saved.push(s), 'memory') }, maxSteps: 2 },
    );
    const shards4 = first.flatMap((e) => (e.type === 'epoch-start' ? [e.shards] : []))[0] ?? [];
    expect(shards4.map((s) => s.length)).toEqual([8, 8, 8, 8]);
    const snap = saved.find((s) => s.position.step === 2);
    expect(snap?.position.ledger?.segments).toEqual([{ world: 4, steps: 2, consumed: [4, 4, 4, 4] }]);

    // through the checkpoint's bytes: trainer.json's ledger is written, validated and read back
    const spec = simpleCnnSpec(0.25);
    const files = await encodeCheckpoint(snap!, spec, tensorsDataset(data.y));
    const read = await decodeCheckpoint(files, spec, 'memory');
    expect(read.position.ledger).toEqual(snap?.position.ledger);

    const config2 = parseConfig({ ...base, workers: 2 });
    const second = await events(
      await Coordinator.start({
        config: config2,
        data: { kind: 'tensors', ...data },
        spawn,
        resume: { ...read, config: config2 },
      }),
    );
    const start = second.find((e) => e.type === 'epoch-start');
    const shards2 = start?.type === 'epoch-start' ? start.shards : [];
    expect(shards2.map((s) => s.length)).toEqual([8, 8]);
    // 2 steps before on 4 ranks, then 4 steps of batch 2 on 2 ranks: steps 2..5 of a 6-step epoch
    const steps = second.flatMap((e) => (e.type === 'step' ? [[e.step, e.steps, e.samples]] : []));
    expect(steps).toEqual([2, 3, 4, 5].map((s) => [s, 6, 4]));

    const before = shards4.flatMap((s) => [...s.subarray(0, 4)]);
    const after = shards2.flatMap((s) => [...s]);
    expect([...before, ...after].sort((a, b) => a - b)).toEqual(Array.from({ length: 32 }, (_, i) => i));
    const proof = second.find((e) => e.type === 'ledger');
    expect(proof).toMatchObject({
      type: 'ledger',
      epoch: 0,
      samples: 32,
      once: 32,
      repeated: 0,
      never: 0,
      before: 16,
      after: 16,
      text: 'epoch 0: 32 samples, each once; 16 before the checkpoint on 4 ranks, 16 after on 2',
    });
    const losses = second.flatMap((e) => (e.type === 'step' ? e.rankLosses : []));
    expect(losses.every(Number.isFinite)).toBe(true);
  });
});
