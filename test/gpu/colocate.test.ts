// --colocate: every rank in one worker thread sharing one device, float32 DDP's buckets summed on
// the GPU (allreduce_sum.wgsl) instead of read back and passed around the ring. Two ranks end bit
// for bit where two workers with their own devices end (a + b = b + a); three ranks with gradient
// accumulation within float tolerance (the ring adds in another order), replicas identical; each
// rank still reports its own memory. Every other mode and precision shares the device too, its
// state going around the ring as with a device each: the same bytes and the same memory per rank.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDistBench, type DistBenchRow } from '../../src/throughput/dist-step.ts';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { compareTensors } from '../../src/reference/compare.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';
import type { ChromeTrace } from '../../src/trace/chrome.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-colocate-'));
const base = ['--store', join(dir, 'store'), '--test-limit', '8', '--json'];
/** The helper's defaults, each unless the test gives that flag (a flag given twice is refused). */
const DEFAULTS = [
  ['--batch-size', '4'],
  ['--check-every', '1'],
  ['--log-every', '0'],
];

async function train(name: string, ...args: string[]) {
  const file = join(dir, `${name}.safetensors`);
  const defaults = DEFAULTS.filter(([f]) => !args.includes(f ?? '')).flat();
  const r = await webddp('train', ...base, ...defaults, ...args, '--save', file);
  expect(r.code, r.err).toBe(0);
  expect(jsonLines(r.out, 'check').every((c) => c.identical === true)).toBe(true);
  return { bytes: readFileSync(file), out: r.out };
}

describe('ranks sharing one device (--colocate)', () => {
  it('two ranks end bit for bit where two workers with their own devices end', async () => {
    const flags = ['--workers', '2', '--train-limit', '16', '--epochs', '1', '--check-every', '2', '--log-every', '1'];
    const own = await train('own2', ...flags);
    const shared = await train('shared2', ...flags, '--colocate');
    expect(Buffer.compare(shared.bytes, own.bytes)).toBe(0);
    // the gradients went around the ring between the workers, and stayed on the device when shared
    const sent = (out: string) =>
      jsonLines(out, 'step').flatMap((e) => (e.workers as { comm_bytes: number }[]).map((w) => w.comm_bytes));
    expect(sent(own.out)).toHaveLength(4); // 2 steps x 2 ranks
    expect(sent(own.out).every((b) => b >= 2 * 545_098)).toBe(true);
    expect(sent(shared.out)).toEqual([0, 0, 0, 0]);
    const [epoch] = jsonLines(shared.out, 'epoch');
    const workers = (epoch?.workers ?? []) as { rank: number; memory_allocated: number }[];
    expect(workers.map((w) => w.rank)).toEqual([0, 1]);
    for (const w of workers) expect(w.memory_allocated).toBeGreaterThan(4 * 545_098); // its own replica
  });

  it('ranks whose rows start where a binding may run one batched step: bit for bit, one dispatch a layer', async () => {
    // width 1/8 and 32 samples a rank: every rank's rows of every buffer start on 256 bytes
    // (train/rank-batch.ts), so the step runs each layer once over both ranks' samples
    const flags = ['--workers', '2', '--width', '0.125', '--batch-size', '32', '--train-limit', '128', '--epochs', '1'];
    const own = await train('own-rows', ...flags);
    const traceFile = join(dir, 'rows.trace.json');
    const shared = await train('shared-rows', ...flags, '--colocate', '--trace', traceFile, '--log-every', '1');
    expect(Buffer.compare(shared.bytes, own.bytes)).toBe(0);
    const trace = JSON.parse(readFileSync(traceFile, 'utf8')) as ChromeTrace;
    const named = (name: string) => trace.traceEvents.filter((e) => e.ph === 'X' && e.name === name);
    // each rank joined the batched step twice (2 steps), and the GPU ran each step's layers once
    // for both ranks, the last step's too (its GPU spans land after its step log: the run's end
    // waits for them); the evaluation's forwards follow, carrying the last step's number
    expect(new Set(named('step of the ranks sharing the device').map((e) => e.pid)).size).toBe(2);
    expect(named('step of the ranks sharing the device')).toHaveLength(4);
    expect(named('evaluate')).toHaveLength(2);
    const at = (name: string, step: number) => named(name).filter((e) => e.cat === 'compute' && e.args?.step === step);
    for (const layer of ['conv1.forward', 'conv2.forward', 'fc1.forward', 'conv2.backward'])
      expect(at(layer, 0), layer).toHaveLength(1);
    for (const layer of ['conv1.backward', 'conv2.backward', 'fc1.backward'])
      expect(at(layer, 1), `${layer} of the last step`).toHaveLength(1);
    // each step's comm_ms is its own time in the shared step, though the steps pipeline (the next
    // one starts before this one's log is sent)
    for (const line of jsonLines(shared.out, 'step')) {
      const step = line.step as number;
      for (const [rank, w] of (line.workers as { comm_ms: number }[]).entries()) {
        const span = named('step of the ranks sharing the device').find((e) => e.pid === rank && e.args?.step === step);
        expect(w.comm_ms, `rank ${rank} step ${step}`).toBeCloseTo((span?.dur ?? NaN) / 1000, 0);
      }
    }
  });

  it('four batched ranks: within tolerance of the ring, replicas identical after every step', async () => {
    const flags = ['--workers', '4', '--width', '0.125', '--batch-size', '32', '--train-limit', '256', '--epochs', '1'];
    const spec = simpleCnnSpec(0.125);
    const own = await train('own-rows4', ...flags);
    const shared = await train('shared-rows4', ...flags, '--colocate');
    const c = compareTensors(
      loadStateDict(new Uint8Array(shared.bytes), spec, 'shared-rows4'),
      loadStateDict(new Uint8Array(own.bytes), spec, 'own-rows4'),
      { rtol: 1e-4, atol: 1e-5 },
    );
    expect(c.mismatches, `max abs ${c.maxAbs}`).toBe(0);
  });

  it('three ranks with gradient accumulation: within tolerance of the ring, replicas identical', async () => {
    const flags = ['--workers', '3', '--train-limit', '24', '--epochs', '1', '--grad-accum', '2'];
    const spec = simpleCnnSpec(1);
    const own = await train('own3', ...flags);
    const shared = await train('shared3', ...flags, '--colocate');
    const c = compareTensors(
      loadStateDict(new Uint8Array(shared.bytes), spec, 'shared3'),
      loadStateDict(new Uint8Array(own.bytes), spec, 'own3'),
      { rtol: 1e-4, atol: 1e-5 },
    );
    expect(c.mismatches, `max abs ${c.maxAbs}`).toBe(0);
  });

  it('pipelined steps stop before every replica check: four ranks checked after each of 8 steps', async () => {
    // Steps run pipelined (step k+1 queued before step k's loss is back); a check read between them
    // would see some ranks a step ahead.
    const flags = ['--workers', '4', '--batch-size', '2', '--train-limit', '64', '--epochs', '1', '--colocate'];
    const r = await train('checked4', ...flags);
    expect(jsonLines(r.out, 'check')).toHaveLength(9); // after each step, and at the epoch's end
  });

  it('webddp bench --workers measures both placements side by side where the mode runs both', async () => {
    const r = await webddp('bench', '--workers', '2', '--modes', 'ddp,zero1', '--batch', '2', '--steps', '2', '--json');
    expect(r.code, r.err).toBe(0);
    const [{ rows = [] } = {}] = r.out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { rows?: DistBenchRow[] });
    expect(rows.map((x) => [x.mode, x.workers, x.placement, x.steps])).toEqual([
      ['ddp', 2, 'own-devices', 2],
      ['ddp', 2, 'shared-device', 2],
      ['zero1', 2, 'own-devices', 2],
      ['zero1', 2, 'shared-device', 2],
    ]);
    // the table: one line per mode and worker count, the two placements side by side
    // (the table bench prints without --json)
    const table = formatDistBench(rows);
    expect(table).toMatch(/^ddp\s+2\s+2(\s+[\d.]+){6}\s+[\d.]+x/m);
    expect(table).toMatch(/^zero1\s+2\s+2(\s+[\d.]+){6}\s+[\d.]+x/m);
    // the host ring's wait against a GPU sum's
    expect(rows[1]?.commMs ?? Infinity).toBeLessThan(rows[0]?.commMs ?? 0);
  });

  it('every mode and precision ends bit for bit where it ends with a device per rank, each rank with its own memory', async () => {
    const runs = [
      ['--mode', 'ddp', '--fp16'],
      ['--mode', 'zero1', '--bf16'],
      ['--mode', 'zero2'],
      ['--mode', 'zero3', '--fp16'],
      ['--mode', 'dp', '--fp16'],
      ['--mode', 'balanced-dp', '--gpu0-bsz', '1'],
    ];
    const flags = ['--workers', '2', '--batch-size', '2', '--train-limit', '8', '--epochs', '1', '--log-every', '0'];
    const run = async (name: string, ...args: string[]) => {
      const file = join(dir, `${name}.safetensors`);
      const r = await webddp('train', ...base, ...flags, ...args, '--save', file);
      expect(r.code, r.err).toBe(0);
      const [epoch] = jsonLines(r.out, 'epoch');
      const workers = (epoch?.workers ?? []) as { rank: number; max_memory_allocated: number }[];
      return { bytes: readFileSync(file), memory: workers.map((w) => [w.rank, w.max_memory_allocated]) };
    };
    for (const args of runs) {
      const name = args.join('').replace(/-/g, '');
      const own = await run(`own-${name}`, ...args);
      const shared = await run(`shared-${name}`, ...args, '--colocate');
      expect(Buffer.compare(shared.bytes, own.bytes), args.join(' ')).toBe(0);
      expect(shared.memory, args.join(' ')).toEqual(own.memory);
      expect(shared.memory).toHaveLength(2);
    }
  });

  it('refuses what it cannot run, by name', async () => {
    const devices = await webddp('train', ...base, '--workers', '2', '--colocate', '--devices', 'a,b');
    expect(devices.err).toMatch(/--colocate shares one device: not with --devices/);
  });
});
