// ZeRO stages as DeepSpeed defines them, end to end in Node worker threads on Dawn: ZeRO-3 ends
// where DDP ends (plain, with clipping, with gradient accumulation; ZeRO-2 and -3 also with the
// real-GPU tuning's tiled linear kernels), and per-rank memory by
// category (parameters, gradients, optimizer state) shrinks as the stage rises, in the --json
// epoch event of every worker.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { compareTensors } from '../../src/reference/compare.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-zero-'));
const base = ['--store', join(dir, 'store'), '--train-limit', '16', '--test-limit', '8', '--epochs', '1'];
const flags = [...base, '--check-every', '2', '--json', '--log-every', '0', '--workers', '2', '--batch-size', '4'];
const spec = simpleCnnSpec(1);

type Categories = Record<string, { allocated: number; peak: number }>;

type Run = { params: Float32Array; byCategory: Categories[] };
const runs = new Map<string, Promise<Run>>();
/** A run of these flags, trained once for every test that asks for it. */
function train(name: string, ...args: string[]): Promise<Run> {
  const key = args.join(' ');
  let run = runs.get(key);
  if (!run) runs.set(key, (run = trainNow(name, ...args)));
  return run;
}

async function trainNow(name: string, ...args: string[]): Promise<Run> {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...flags, ...args, '--save', file);
  expect(r.code, r.err).toBe(0);
  const [epoch] = jsonLines(r.out, 'epoch');
  const workers = (epoch?.workers ?? []) as { by_category: Categories }[];
  expect(workers).toHaveLength(2);
  expect(jsonLines(r.out, 'check').every((c) => c.identical === true)).toBe(true);
  return {
    params: loadStateDict(new Uint8Array(readFileSync(file)), spec, file),
    byCategory: workers.map((w) => w.by_category),
  };
}

// The ZeRO-vs-DDP tolerance of distributed.test.ts (bit-close: the same sums in the same order).
const close = (a: Float32Array, b: Float32Array) => compareTensors(a, b, { rtol: 1e-4, atol: 1e-5 });

describe('ZeRO-3 (Node worker threads, Dawn)', () => {
  it('ends where DDP ends: Adam, clipping, gradient accumulation', async () => {
    for (const extra of [
      ['--optimizer', 'adam'], // also the memory test's DDP and ZeRO-3 runs
      ['--no-shuffle', '--clip-grad-norm', '0.01'],
      ['--no-shuffle', '--grad-accum', '2'],
    ]) {
      const ddp = await train(`ddp${extra.join('')}`, ...extra, '--mode', 'ddp');
      const z3 = await train(`zero3${extra.join('')}`, ...extra, '--mode', 'zero3');
      const c = close(z3.params, ddp.params);
      expect(c.mismatches, `${extra.join(' ')}: max abs ${c.maxAbs}`).toBe(0);
    }
  });

  it("with a real GPU's linear kernels (fc1 tiled, its weight gradient split across workgroups) ZeRO-2 and -3 end where DDP ends", async () => {
    // fc1 is larger than the ZeRO bucket, so ZeRO-2 and -3 compute its weight gradient in row
    // pieces instead of the layer's own kernels: the tiled kernel and its reduce must both give way.
    const tuning = JSON.stringify({
      convForward: 'registers',
      convInput: 'registers',
      convWeight: 'registers',
      linearForward: 'tiled',
      linearWeight: 'tiled',
    });
    const ddp = await train('ddp-tiled', '--tuning', tuning);
    for (const mode of ['zero2', 'zero3']) {
      const z = await train(`${mode}-tiled`, '--tuning', tuning, '--mode', mode);
      const c = close(z.params, ddp.params);
      expect(c.mismatches, `${mode}: max abs ${c.maxAbs}`).toBe(0);
    }
  });

  it('memory per rank by category shrinks as the stage rises (W = 2)', async () => {
    const modes = ['ddp', 'zero1', 'zero2', 'zero3'] as const;
    const runs = [];
    for (const m of modes) runs.push(await train(`mem-${m}`, '--optimizer', 'adam', '--mode', m));
    // The stage at which each category is first partitioned: strictly smaller there, never larger after.
    const partitionedAt = { optimizer: 1, gradients: 2, parameters: 3 } as const;
    for (const [cat, at] of Object.entries(partitionedAt)) {
      for (let r = 0; r < 2; r++) {
        const peaks = runs.map((run) => run.byCategory[r]?.[cat]?.peak ?? NaN);
        for (let s = 1; s < modes.length; s++) {
          const [prev = NaN, cur = NaN] = [peaks[s - 1], peaks[s]];
          if (s === at) expect(cur, `${cat} rank ${r}: ${modes[s]} < ${modes[s - 1]}`).toBeLessThan(prev);
          else expect(cur, `${cat} rank ${r}: ${modes[s]} <= ${modes[s - 1]}`).toBeLessThanOrEqual(prev);
        }
        // Partitioned state is about half of DDP's (P/W), plus at most one 256 KiB bucket.
        expect(peaks[3], `${cat} rank ${r}`).toBeLessThan((peaks[0] ?? 0) / 2 + 256 * 1024 + 64);
      }
    }
  });
});
