// fp16 mixed precision end to end (`webddp train`, Node worker threads on Dawn): DeepSpeed's loss
// scaler on forced overflows (scale sequence, log lines, skipped steps leave the parameters and the
// lr schedule where they were), fp16 DDP on 2 workers against fp32 (replicas identical, the loss
// falls as fp32's does, parameter, activation and communication memory shrink), and the example ds_config
// (ZeRO-2, fp16, scheduler; test/fixtures/ds_config_zero2_fp16.json) as is on 2 workers.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { initSimpleCnn } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { DynamicLossScaler } from '../../src/optim/loss-scaler.ts';
import { f16Round } from '../../src/numeric/f16.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';
import SEED from '../fixtures/ds_config_zero2_fp16.json';

const dir = mkdtempSync(join(tmpdir(), 'webddp-fp16-'));
const store = ['--store', join(dir, 'store'), '--test-limit', '8', '--json'];
const spec = simpleCnnSpec(1);
const config = (name: string, json: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(json));
  return p;
};

type Categories = Record<string, { allocated: number; peak: number }>;

describe('fp16 loss scaling on forced overflows (1 worker)', () => {
  it("follows DeepSpeed's DynamicLossScaler step by step; a skipped step moves neither the parameters nor the lr", async () => {
    const fp16 = { enabled: true, initial_scale_power: 20, loss_scale_window: 2, hysteresis: 2, min_loss_scale: 1 };
    const ds = config('overflow.json', { train_micro_batch_size_per_gpu: 4, fp16, gradient_clipping: 0 });
    const r = await webddp(
      'train',
      ...store,
      '--deepspeed-config',
      ds,
      '--workers',
      '1',
      '--train-limit',
      '28',
      '--schedule',
      'StepLR:step_size=1,gamma=0.5',
      '--log-every',
      '1',
      '--check-every',
      '0',
    );
    expect(r.code, r.err).toBe(0);
    const steps = jsonLines(r.out, 'step');
    const notes = new Map(jsonLines(r.out, 'fp16').map((l) => [l.step, l.messages]));
    expect(steps).toHaveLength(7);
    // the same scaler, fed the flags the run saw, gives the run's scales and log lines
    const scaler = new DynamicLossScaler({
      initialScalePower: 20,
      scaleWindow: 2,
      minScale: 1,
      hysteresis: 2,
      consecutiveHysteresis: false,
    });
    let taken = 0;
    for (const s of steps) {
      expect(s.loss_scale, `step ${String(s.step)}`).toBe(scaler.scale);
      expect(s.lr, `step ${String(s.step)}`).toBe(0.01 * 0.5 ** taken); // StepLR steps only when the optimizer does
      const u = scaler.update(s.skipped === true);
      expect(notes.get(s.step) ?? [], `step ${String(s.step)}`).toEqual(u.messages);
      if (!s.skipped) taken++;
    }
    // 2^20 overflows: hysteresis absorbs the first, then the scale halves until it fits
    expect(steps.slice(0, 2).map((s) => s.skipped)).toEqual([true, true]);
    expect(notes.get(0)).toEqual([
      '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1048576, but hysteresis is 2. Reducing hysteresis to 1',
    ]);
    expect(notes.get(1)).toEqual([
      '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1048576, reducing to 524288',
    ]);
    expect(taken).toBeGreaterThan(0);
  });

  it('a run whose every step overflows ends with the parameters it started from', async () => {
    const fp16 = { enabled: true, initial_scale_power: 40, hysteresis: 2 };
    const ds = config('all-skip.json', { train_micro_batch_size_per_gpu: 4, fp16 });
    const file = join(dir, 'all-skip.safetensors');
    const r = await webddp(
      'train',
      ...store,
      '--deepspeed-config',
      ds,
      '--workers',
      '1',
      '--train-limit',
      '8',
      '--log-every',
      '1',
      '--save',
      file,
    );
    expect(r.code, r.err).toBe(0);
    expect(jsonLines(r.out, 'step').map((s) => s.skipped)).toEqual([true, true]);
    const saved = loadStateDict(new Uint8Array(readFileSync(file)), spec, file);
    expect(saved).toEqual(initSimpleCnn(spec, 0).map(f16Round));
  });
});

describe('fp16 DDP on 2 workers against fp32', () => {
  it('replicas stay identical, the loss falls as in fp32, parameters, activations and communication memory shrink', async () => {
    const run = async (...extra: string[]) => {
      const r = await webddp(
        'train',
        ...store,
        '--workers',
        '2',
        '--batch-size',
        '4',
        '--train-limit',
        '16',
        '--epochs',
        '2',
        '--lr',
        '0.05',
        '--check-every',
        '2',
        '--log-every',
        '0',
        ...extra,
      );
      expect(r.code, r.err).toBe(0);
      expect(jsonLines(r.out, 'check').every((c) => c.identical === true)).toBe(true);
      const epochs = jsonLines(r.out, 'epoch');
      const workers = (epochs[1]?.workers ?? []) as { by_category: Categories }[];
      return { losses: epochs.map((e) => e.train_loss as number), mem: workers.map((w) => w.by_category) };
    };
    const f32 = await run();
    const f16 = await run('--fp16');
    const [a0 = NaN, a1 = NaN] = f32.losses;
    const [h0 = NaN, h1 = NaN] = f16.losses;
    expect(h1).toBeLessThan(h0);
    expect(Math.abs(h0 - a0)).toBeLessThan(0.01);
    expect(Math.abs(h1 - a1)).toBeLessThan(0.02);
    const P = spec.total;
    for (let r = 0; r < 2; r++) {
      const [m32, m16] = [f32.mem[r], f16.mem[r]];
      expect(m16?.parameters?.peak).toBe(Math.ceil(P / 2) * 4); // the halves
      expect(m32?.parameters?.peak).toBe(P * 4);
      expect(m16?.communication?.peak ?? Infinity).toBeLessThan((m32?.communication?.peak ?? 0) * 0.6);
      expect(m16?.optimizer?.peak).toBe((m32?.optimizer?.peak ?? 0) + P * 4); // + the fp32 master
      // the input and the conv and pool outputs of 4 samples in halves: 2 bytes less per value
      const halved = 4 * (3072 + spec.c1 * (1024 + 256) + spec.c2 * (256 + 64));
      expect(m16?.activations?.peak).toBe((m32?.activations?.peak ?? 0) - halved * 2);
    }
  });
});

describe('the example ds_config (ZeRO-2, fp16, AdamW, WarmupLR, clipping), as is', () => {
  it('trains on 2 workers on the synthetic set', async () => {
    const seed = config('seed.json', SEED);
    const r = await webddp(
      'train',
      ...store,
      '--deepspeed-config',
      seed,
      '--workers',
      '2',
      '--data',
      'synthetic',
      '--train-limit',
      '64',
      '--check-every',
      '1',
    );
    expect(r.code, r.err).toBe(0);
    const steps = jsonLines(r.out, 'step');
    expect(steps.map((s) => s.loss_scale)).toEqual([65536]);
    expect(steps.every((s) => s.skipped === false && Number.isFinite(s.loss))).toBe(true);
    expect(jsonLines(r.out, 'check').every((c) => c.identical === true)).toBe(true);
    const [epoch] = jsonLines(r.out, 'epoch');
    expect(epoch?.test_samples).toBe(8);
    // reduce_bucket_size 2e8 holds fc1 whole: the gradient bucket is fc1 (524,416 floats), not a 15-row piece
    const workers = (epoch?.workers ?? []) as { by_category: Categories }[];
    for (const w of workers) expect(w.by_category.gradients?.peak).toBeGreaterThanOrEqual(524_416 * 4);
  });
});
