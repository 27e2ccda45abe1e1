// `webddp train --deepspeed-config FILE` and `--schedule`: the config the command would train with
// (buildTrainConfig, what cmd-train calls before it starts any worker), and the command itself up
// to the point where it needs the bundled rank worker: bad input is a UsageError naming the flag,
// the file and the key; good input gets past every check.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { command as trainCmd } from '../../src/cli/cmd-train.ts';
import { UsageError } from '../../src/cli/command.ts';
import { buildTrainConfig, describeFp16 } from '../../src/cli/train-config.ts';
import SEED from '../fixtures/ds_config_zero2_fp16.json';

const dir = mkdtempSync(join(tmpdir(), 'webddp-ds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, json: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof json === 'string' ? json : JSON.stringify(json));
  return p;
};

const seed = file('seed.json', SEED);

const usage = async (values: Record<string, string | boolean>) => {
  try {
    await buildTrainConfig(values);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error('expected a UsageError');
};

describe('--deepspeed-config', () => {
  it('the example ZeRO-2 fp16 ds_config.json gives the one TrainConfig; flags for other settings apply; notes say what fp16 does', async () => {
    const r = await buildTrainConfig({ 'deepspeed-config': seed, epochs: '3', workers: '2' });
    expect(r.config).toMatchObject({
      mode: 'zero2',
      workers: 2,
      epochs: 3,
      batchSize: 16,
      gradAccum: 2,
      optimizer: 'adamw',
      lr: 2e-5,
      weightDecay: 0.01,
      clipGradNorm: 1,
      fp16: true,
      stepsPerPrint: 10,
      reduceBucketSize: 2e8,
    });
    expect(r.logEvery).toBe(10);
    expect(r.notes).toEqual([
      `DeepSpeed config ${seed}: train_batch_size 64 = micro-batch 16 x accumulation 2 x 2 workers`,
      'optimizer AdamW: DeepSpeed FusedAdam, the update of torch.optim.AdamW (decoupled weight decay), weight_decay 0.01',
      'scheduler WarmupLR(warmup_min_lr=0, warmup_max_lr=0.00002, warmup_num_steps=100, warmup_type=log)',
      describeFp16(r.config),
    ]);
    expect(describeFp16(r.config)).toMatch(
      /^fp16 mixed precision: .*dynamic loss scale from 2\^16 \(window 1000, hysteresis 2, min 1\)\. Arithmetic: where the device has shader-f16 and f16 x f16 -> f32 subgroup matrices/,
    );
  });

  it('--reduce-bucket-size sets the ZeRO bucket; the file wins over it', async () => {
    expect((await buildTrainConfig({ 'reduce-bucket-size': '1000', mode: 'zero2' })).config.reduceBucketSize).toBe(
      1000,
    );
    expect(await usage({ 'deepspeed-config': seed, 'reduce-bucket-size': '1000' })).toBe(
      `--reduce-bucket-size 1000 conflicts with ${seed}: zero_optimization.reduce_bucket_size gives 200000000`,
    );
  });

  it('--fp16 turns fp16 on in every mode; bf16 in ddp, zero1, zero2, refused by name elsewhere', async () => {
    for (const mode of ['ddp', 'dp', 'balanced-dp', 'zero1', 'zero2', 'zero3'])
      expect((await buildTrainConfig({ fp16: true, mode, workers: '2' })).config.fp16, mode).toBe(true);
    const bare = file('bare16.json', { train_batch_size: 8 });
    // a file without an fp16 section leaves it to the flag; one that turns it off wins over it
    expect((await buildTrainConfig({ 'deepspeed-config': bare, fp16: true })).config.fp16).toBe(true);
    const off = file('fp16off.json', { train_batch_size: 8, fp16: { enabled: false } });
    expect(await usage({ 'deepspeed-config': off, fp16: true })).toBe(
      `--fp16 true conflicts with ${off}: fp16.enabled gives false`,
    );
    const bf16 = file('bf16.json', { train_batch_size: 8, bf16: { enabled: true } });
    expect((await buildTrainConfig({ 'deepspeed-config': bf16 })).config.bf16).toBe(true);
    for (const mode of ['ddp', 'zero1', 'zero2'])
      expect((await buildTrainConfig({ bf16: true, mode, workers: '2' })).config.bf16, mode).toBe(true);
    for (const mode of ['dp', 'balanced-dp', 'zero3'])
      expect(await usage({ bf16: true, mode, workers: '2' })).toBe(
        `bf16 is not supported with mode ${mode}: bf16 mixed precision runs with ddp, zero1, zero2`,
      );
    expect(await usage({ bf16: true, fp16: true })).toBe('bfloat16 and fp16 modes cannot be simultaneously enabled');
    const bad = file('bf16bad.json', { train_batch_size: 8, bf16: { enabled: true, loss_scale: 0 } });
    expect(await usage({ 'deepspeed-config': bad })).toMatch(/bf16\.loss_scale/);
  });

  it('a flag that contradicts the file is refused naming both; one that agrees is fine', async () => {
    expect(await usage({ 'deepspeed-config': seed, lr: '0.01', 'batch-size': '8' })).toBe(
      `--batch-size 8 conflicts with ${seed}: train_micro_batch_size_per_gpu (from train_batch_size / ` +
        `gradient_accumulation_steps / world size) gives 16; --lr 0.01 conflicts with ${seed}: optimizer.params.lr gives 0.00002`,
    );
    expect(await usage({ 'deepspeed-config': seed, mode: 'ddp' })).toBe(
      `--mode "ddp" conflicts with ${seed}: zero_optimization.stage gives "zero2"`,
    );
    expect(await usage({ 'deepspeed-config': seed, 'log-every': '5' })).toBe(
      `--log-every 5 conflicts with ${seed}: steps_per_print gives 10`,
    );
    const bare = file('bare.json', { train_batch_size: 8 });
    expect(await usage({ 'deepspeed-config': bare, 'clip-grad-norm': '0' })).toBe(
      `--clip-grad-norm 0 conflicts with ${bare}: gradient_clipping gives 1 (DeepSpeed's default when the file leaves it out)`,
    );
    // A file without a scheduler leaves it to the client, as DeepSpeed does: --schedule applies.
    const withFlag = await buildTrainConfig({ 'deepspeed-config': bare, schedule: 'StepLR:step_size=2' });
    expect(withFlag.config.schedule).toEqual({ type: 'StepLR', params: { step_size: 2, gamma: 0.1 } });
    const agree = await buildTrainConfig({ 'deepspeed-config': seed, 'batch-size': '16', mode: 'zero2' });
    expect(agree.config.batchSize).toBe(16);
  });

  it('--workers is the world size the batch sizes are checked against', async () => {
    expect(await usage({ 'deepspeed-config': seed, workers: '3' })).toBe(
      `--deepspeed-config ${seed}: Check batch related parameters. train_batch_size is not equal to ` +
        'micro_batch_per_gpu * gradient_acc_step * world_size 64 != 10 * 2 * 3',
    );
    expect((await buildTrainConfig({ 'deepspeed-config': seed, workers: '4' })).config.batchSize).toBe(8);
  });

  it('an `lr_scheduler` key, unreadable files and non-JSON are refused naming the file', async () => {
    const { scheduler, ...rest } = SEED;
    const lrs = file('lr_scheduler.json', { ...rest, lr_scheduler: scheduler });
    expect(await usage({ 'deepspeed-config': lrs })).toBe(
      `--deepspeed-config ${lrs}: lr_scheduler is not a DeepSpeed key: the scheduler block is \`scheduler\` ({ "type": ..., "params": ... })`,
    );
    expect(await usage({ 'deepspeed-config': join(dir, 'missing.json') })).toMatch(/: cannot read it \(ENOENT/);
    const bad = file('bad.json', '{\n  "train_batch_size": 64,\n}');
    expect(await usage({ 'deepspeed-config': bad })).toBe(
      `--deepspeed-config ${bad}: PropertyNameExpected at line 3, column 1`,
    );
    // DeepSpeed reads hjson: comments are fine; a key given twice is refused, as DeepSpeed does.
    const commented = file(
      'commented.json',
      '{ // the example\n "train_batch_size": 64, /* per step */ "gradient_accumulation_steps": 2 }',
    );
    expect((await buildTrainConfig({ 'deepspeed-config': commented })).config.batchSize).toBe(16);
    const dup = file(
      'dup.json',
      '{ "train_batch_size": 64, "zero_optimization": { "stage": 1, "stage": 2 }, "train_batch_size": 32 }',
    );
    expect(await usage({ 'deepspeed-config': dup })).toBe(
      `--deepspeed-config ${dup}: Duplicate keys in DeepSpeed config: zero_optimization.stage, train_batch_size`,
    );
  });
});

describe('--schedule', () => {
  it('sets the schedule; a bad one is refused naming the flag', async () => {
    const r = await buildTrainConfig({ schedule: 'CosineAnnealingLR:T_max=100', lr: '0.1' });
    expect(r.config.schedule).toEqual({ type: 'CosineAnnealingLR', params: { T_max: 100, eta_min: 0 } });
    expect(r.logEvery).toBe(50);
    expect(await usage({ schedule: 'CosineAnnealingLR:T_max=0' })).toBe(
      '--schedule CosineAnnealingLR T_max must be an integer >= 1 (got 0)',
    );
    expect(await usage({ 'deepspeed-config': seed, schedule: 'StepLR:step_size=5' })).toBe(
      `--schedule StepLR(step_size=5, gamma=0.1) conflicts with ${seed}: scheduler gives ` +
        'WarmupLR(warmup_min_lr=0, warmup_max_lr=0.00002, warmup_num_steps=100, warmup_type=log)',
    );
  });

  it('the command checks everything before it needs a rank worker', async () => {
    const io = { out: () => {}, err: () => {} };
    await expect(trainCmd.run(['--schedule', 'nope'], io)).rejects.toThrow(UsageError);
    await expect(trainCmd.run(['--deepspeed-config', seed], io)).rejects.toThrow(/needs the bundled rank worker/);
    let help = '';
    await trainCmd.run(['--help'], { out: (t) => (help += t), err: () => {} });
    expect(help).toMatch(/--deepspeed-config <FILE>/);
    expect(help).toMatch(/--schedule <TYPE\[:name=value,\.\.\.\]>/);
  });
});
