// Data parallelism end to end in Node: real worker threads, each with its own Dawn device, the
// ring between them. DDP replays PyTorch's 2-rank run; DDP on W workers equals one worker with W x
// the batch; DataParallel and ZeRO equal DDP; DataParallel's memory piles up on device 0; failures name
// the rank and the cause, within a bounded time.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { compareTensors } from '../../src/reference/compare.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-dist-'));
const base = [
  '--store',
  join(dir, 'store'),
  '--train-limit',
  '32',
  '--test-limit',
  '16',
  '--epochs',
  '1',
  '--check-every',
  '2',
  '--json',
  '--log-every',
  '0',
];
const spec = simpleCnnSpec(1);
const params = (file: string) => loadStateDict(new Uint8Array(readFileSync(file)), spec, file);

async function train(name: string, ...args: string[]): Promise<{ params: Float32Array; peaks: number[]; out: string }> {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...base, ...args, '--save', file);
  expect(r.code, r.err).toBe(0);
  const [epoch] = jsonLines(r.out, 'epoch');
  const workers = (epoch?.workers ?? []) as { max_memory_allocated: number }[];
  expect(jsonLines(r.out, 'check').every((c) => c.identical === true)).toBe(true);
  return { params: params(file), peaks: workers.map((w) => w.max_memory_allocated), out: r.out };
}

const close = (a: Float32Array, b: Float32Array) => compareTensors(a, b, { rtol: 1e-4, atol: 1e-5 });

describe('distributed training (Node worker threads, Dawn)', () => {
  it('replays PyTorch DDP world 2 (ddp_world2.safetensors): params, shards and losses', async () => {
    const r = await webddp('parity', 'fixtures/ddp_world2.safetensors');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/parity OK: 12 checks/);
  });

  it('DDP on 2 workers (batch 4 each) equals 1 worker with batch 8', async () => {
    const ddp2 = await train('ddp2-noshuffle', '--workers', '2', '--batch-size', '4', '--no-shuffle');
    const one = await train('one-noshuffle', '--workers', '1', '--batch-size', '8', '--no-shuffle');
    const c = close(ddp2.params, one.params);
    expect(c.mismatches, `max abs ${c.maxAbs}`).toBe(0);
  });

  it('gradient accumulation (no_sync) of 2 x 4 equals a batch of 8; clipping on 2 workers equals clipping on 1', async () => {
    const accum = await train('accum', '--workers', '2', '--batch-size', '4', '--grad-accum', '2', '--no-shuffle');
    const big = await train('big', '--workers', '2', '--batch-size', '8', '--no-shuffle');
    const c = close(accum.params, big.params);
    expect(c.mismatches, `max abs ${c.maxAbs}`).toBe(0);
    const clip2 = await train(
      'clip2',
      '--workers',
      '2',
      '--batch-size',
      '4',
      '--no-shuffle',
      '--clip-grad-norm',
      '0.01',
    );
    const clip1 = await train(
      'clip1',
      '--workers',
      '1',
      '--batch-size',
      '8',
      '--no-shuffle',
      '--clip-grad-norm',
      '0.01',
    );
    const zclip = await train(
      'zclip',
      '--workers',
      '2',
      '--batch-size',
      '4',
      '--no-shuffle',
      '--clip-grad-norm',
      '0.01',
      '--mode',
      'zero2',
    );
    expect(close(clip2.params, clip1.params).mismatches).toBe(0);
    expect(close(zclip.params, clip2.params).mismatches).toBe(0);
    expect(close(clip2.params, big.params).mismatches).toBeGreaterThan(0);
  });

  it('DataParallel, BalancedDataParallel, ZeRO-1 and ZeRO-2 end where DDP ends (same samples every step)', async () => {
    const ddp = await train('ddp2', '--workers', '2', '--batch-size', '4', '--optimizer', 'adam');
    for (const mode of ['dp', 'balanced-dp', 'zero1', 'zero2']) {
      const other = await train(
        mode,
        '--workers',
        '2',
        '--batch-size',
        '4',
        '--optimizer',
        'adam',
        '--mode',
        mode,
        '--gpu0-bsz',
        '2',
      );
      const c = compareTensors(other.params, ddp.params, { rtol: 1e-3, atol: 1e-4 });
      expect(c.mismatches / c.count, `${mode}: max abs ${c.maxAbs}`).toBeLessThan(0.001);
      expect(compareTensors(other.params, ddp.params, { rtol: 0, atol: 5e-3 }).ok, mode).toBe(true);
    }
  });

  it('memory: DataParallel piles up on worker 0, BalancedDP relieves it', async () => {
    const run = async (mode: string) =>
      (
        await train(
          `mem-${mode}`,
          '--workers',
          '3',
          '--batch-size',
          '8',
          '--optimizer',
          'adam',
          '--mode',
          mode,
          '--gpu0-bsz',
          '2',
        )
      ).peaks;
    const dp = await run('dp');
    expect(dp[0]).toBeGreaterThan(Math.max(...dp.slice(1)));
    const balanced = await run('balanced-dp');
    expect(balanced[0]).toBeLessThan(dp[0] ?? 0);
    // ZeRO's shrinking memory: test/gpu/zero.test.ts, per rank and per category, every stage
  });
});

describe('failures stop the run and name the rank', () => {
  const fail = (fault: string) =>
    webddp('train', ...base, '--workers', '2', '--batch-size', '4', '--step-timeout', '5', '--inject-fault', fault);
  it.each([
    ['1:1:throw', /rank 1 failed during step 1 of epoch 0: Error: injected fault/],
    ['1:1:exit', /rank 1 failed during step 1 of epoch 0: worker exited with code 3/],
    ['0:1:device-lost', /rank 0 failed during step 1 of epoch 0: DeviceLostError: GPU device 'rank 0' was lost/],
    [
      '1:2:hang',
      /rank 1 failed during step 2 of epoch 0: CollectiveTimeoutError: rank 0: timed out after 5000 ms waiting for data from rank 1/,
    ],
  ])('%s', async (fault, message) => {
    const t0 = Date.now();
    const r = await fail(fault);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(message);
    expect(Date.now() - t0).toBeLessThan(120_000);
  });

  it("a rank that skips a bucket: --debug-collectives stops at the mismatch naming both sides; the error event carries every rank's flight recorder", async () => {
    const r = await webddp(
      'train',
      ...base,
      ...['--workers', '2', '--batch-size', '4', '--step-timeout', '5'],
      ...['--inject-fault', '1:1:skip-bucket', '--debug-collectives'],
    );
    expect(r.code).toBe(1);
    const [e] = jsonLines(r.out, 'error');
    // SimpleCNN's DDP buckets: 0 = fc2 + fc1 (525,706 elements, closed past 1 MiB), 1 = conv2 + conv1
    expect(e?.message).toMatch(/collective desync \(bucket, count differ\)/);
    expect(e?.message).toMatch(/rank 1 is about to run allReduce #3 \(bucket 1, f32, 19392 elements, step 1\)/);
    expect(e?.message).toMatch(/rank 0 is about to run allReduce #3 \(bucket 0, f32, 525706 elements, step 1\)/);
    expect(e?.message).toContain(
      'collectives at the failure (flight recorder):\n  ranks 0, 1 are in no collective; last completed allReduce #2 (bucket 1, f32, 77.6 kB, step 0)',
    );
    const states = e?.collectives as { rank: number; group: string; entered: number; records: { seq: number }[] }[][];
    expect(states.map((s) => s.map((g) => [g.rank, g.group, g.entered]))).toEqual([[[0, 'ring', 3]], [[1, 'ring', 3]]]);
    expect(states[0]?.[0]?.records.map((x) => x.seq)).toEqual([0, 1, 2]);
  });
});
