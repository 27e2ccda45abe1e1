// ds_config.json parsing: a ZeRO-2 fp16 config (test/fixtures, with `scheduler`) maps onto TrainConfig;
// its `lr_scheduler` spelling is refused naming the key meant; unknown keys are refused by path at
// every depth; batch sizes are derived and checked as DeepSpeed's _configure_train_batch_size
// does (its messages); optimizer types map as DeepSpeed's _configure_basic_optimizer builds them.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/parallel/index.ts';
import { deriveBatch } from '../../src/deepspeed/batch.ts';
import { parseDeepSpeedConfig, type DeepSpeedSettings } from '../../src/deepspeed/config.ts';
import SEED from '../fixtures/ds_config_zero2_fp16.json';

function ok(input: unknown, world = 2): DeepSpeedSettings {
  const r = parseDeepSpeedConfig(input, world);
  if (!r.ok) throw new Error(r.issues.join('\n'));
  return r.settings;
}
const issues = (input: unknown, world = 2) => {
  const r = parseDeepSpeedConfig(input, world);
  return r.ok ? [] : r.issues;
};

describe('the example ZeRO-2 fp16 ds_config.json (test/fixtures/ds_config_zero2_fp16.json)', () => {
  it('parses onto TrainConfig with DeepSpeed semantics (2 workers: micro-batch 16)', () => {
    const s = ok(SEED);
    expect(s.trainBatchSize).toBe(64);
    expect(s.fields).toEqual({
      batchSize: 16, // 64 // 2 ranks // 2 accumulation steps
      gradAccum: 2,
      optimizer: 'adamw',
      lr: 2e-5,
      adamBetas: [0.9, 0.999],
      adamEps: 1e-8,
      weightDecay: 0.01,
      fp16: true,
      fp16LossScale: 0,
      fp16InitialScalePower: 16,
      fp16LossScaleWindow: 1000,
      fp16Hysteresis: 2,
      fp16ConsecutiveHysteresis: false,
      fp16MinLossScale: 1,
      mode: 'zero2',
      reduceBucketSize: 200_000_000,
      schedule: {
        type: 'WarmupLR',
        params: { warmup_min_lr: 0, warmup_max_lr: 2e-5, warmup_num_steps: 100, warmup_type: 'log' },
      },
      clipGradNorm: 1.0,
      stepsPerPrint: 10,
    });
    expect(s.notes).toEqual([
      'optimizer AdamW: DeepSpeed FusedAdam, the update of torch.optim.AdamW (decoupled weight decay), weight_decay 0.01',
    ]);
    // ... and the result is a valid TrainConfig.
    const v = validateConfig({ workers: 2, ...s.fields });
    expect(v.ok).toBe(true);
  });

  it("refuses the `lr_scheduler` spelling of DeepSpeed's examples, saying `scheduler` is meant", () => {
    const { scheduler, ...rest } = SEED;
    expect(issues({ ...rest, lr_scheduler: scheduler })).toEqual([
      'lr_scheduler is not a DeepSpeed key: the scheduler block is `scheduler` ({ "type": ..., "params": ... })',
    ]);
  });

  it('with stage 3 maps to mode zero3, a valid configuration with fp16 and without', () => {
    const s = ok({ ...SEED, zero_optimization: { ...SEED.zero_optimization, stage: 3 } });
    expect(s.fields.mode).toBe('zero3');
    const v = validateConfig({ workers: 2, ...s.fields, fp16: false });
    expect(v.ok ? [] : v.issues.map((i) => i.message)).toEqual([]);
    const f = validateConfig({ workers: 2, ...s.fields });
    expect(f.ok ? [] : f.issues.map((i) => i.message)).toEqual([]);
  });

  it("on 3 workers its 64 / 2 does not divide: refused with DeepSpeed's assertion text", () => {
    expect(issues(SEED, 3)).toEqual([
      'Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 10 * 2 * 3',
    ]);
  });
});

describe('keys webddp does not implement are refused by path, never ignored', () => {
  it('at the top, in sections, and in optimizer / scheduler params', () => {
    const bad = {
      ...SEED,
      activation_checkpointing: {},
      zero_optimization: {
        ...SEED.zero_optimization,
        offload_optimizer: { device: 'cpu' },
        stage3_max_live_parameters: 1e9,
      },
      fp16: { ...SEED.fp16, auto_cast: true, loss_scale_windw: 10 },
      optimizer: { type: 'AdamW', params: { lr: 1e-3, max_grad_norm: 1.0, amsgrad: true } },
      scheduler: { type: 'WarmupLR', params: { warmup_num_steps: 10, last_batch_iteration: 5 } },
    };
    expect(issues(bad)).toEqual([
      'activation_checkpointing is not supported',
      "optimizer.params.max_grad_norm is not supported as an optimizer parameter, please switch to using the deepspeed parameter 'gradient_clipping'",
      'optimizer.params.amsgrad = true is not supported: FusedAdam has no AMSGrad either',
      'fp16.loss_scale_windw is not supported',
      'fp16.auto_cast = true is not supported: webddp has no input autocast',
      'zero_optimization.offload_optimizer is not supported',
      'zero_optimization.stage3_max_live_parameters is not supported',
      'scheduler.params.last_batch_iteration is not supported by WarmupLR (it takes warmup_min_lr, warmup_max_lr, warmup_num_steps, warmup_type)',
    ]);
  });

  it('values of the wrong type or range, with their paths', () => {
    expect(
      issues({
        train_batch_size: 64.5,
        optimizer: { type: 'SGD', params: { lr: -1, momentum: 'high', nesterov: true } },
        zero_optimization: { stage: 4, reduce_scatter: false, overlap_comm: 'yes' },
        gradient_clipping: -1,
        steps_per_print: 0,
        bf16: { enabled: 1 },
      }),
    ).toEqual([
      'train_batch_size must be an integer >= 1 (got 64.5)',
      'optimizer.params.nesterov = true is not supported: webddp has no Nesterov setting',
      'optimizer.params.lr must be a number > 0 and <= 10 (got -1)',
      'optimizer.params.momentum must be a number >= 0 and <= 0.999 (got "high")',
      'bf16.enabled must be true or false (got 1)',
      'zero_optimization.reduce_scatter = false is not supported: webddp always reduce-scatters the gradients',
      'zero_optimization.overlap_comm must be true or false (got "yes")',
      'zero_optimization.stage must be an integer from 0 to 3 (got 4)',
      'gradient_clipping must be a number >= 0 (got -1)',
      'steps_per_print must be an integer >= 1 (got 0)',
    ]);
    expect(issues([])).toEqual(['the DeepSpeed config must be an object (got [])']);
    expect(issues({ train_batch_size: 8, fp16: { enabled: true }, bf16: { enabled: true } })).toEqual([
      'bfloat16 and fp16 modes cannot be simultaneously enabled',
    ]);
  });
});

describe('batch sizes as DeepSpeed derives and checks them', () => {
  const cases: [Parameters<typeof deriveBatch>[0], number, string][] = [
    [{ train_batch_size: 64, train_micro_batch_size_per_gpu: 8 }, 4, '64 = 8 x 2 x 4'], // accum = 64 // 8 // 4
    [{ train_batch_size: 64, gradient_accumulation_steps: 4 }, 2, '64 = 8 x 4 x 2'], // micro = 64 // 2 // 4
    [{ train_micro_batch_size_per_gpu: 8, gradient_accumulation_steps: 3 }, 2, '48 = 8 x 3 x 2'],
    [{ train_batch_size: 32 }, 4, '32 = 8 x 1 x 4'],
    [{ train_micro_batch_size_per_gpu: 5 }, 3, '15 = 5 x 1 x 3'],
    [{ train_batch_size: 24, train_micro_batch_size_per_gpu: 4, gradient_accumulation_steps: 3 }, 2, '24 = 4 x 3 x 2'],
  ];
  for (const [input, world, want] of cases)
    it(`${JSON.stringify(input)} on ${world}: ${want}`, () => {
      const r = deriveBatch(input, world);
      expect(r.ok && `${r.sizes.trainBatchSize} = ${r.sizes.microBatchPerGpu} x ${r.sizes.gradAccum} x ${world}`).toBe(
        want,
      );
    });

  it('refuses what DeepSpeed asserts against, in its words', () => {
    expect(
      deriveBatch({ train_batch_size: 24, train_micro_batch_size_per_gpu: 4, gradient_accumulation_steps: 2 }, 2),
    ).toEqual({
      ok: false,
      issue:
        'Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size 24 != 4 * 2 * 2',
    });
    expect(deriveBatch({ train_batch_size: 2, train_micro_batch_size_per_gpu: 4 }, 2)).toEqual({
      ok: false,
      issue: 'Gradient accumulation steps: 0 has to be greater than 0',
    });
    expect(deriveBatch({ train_batch_size: 3 }, 4)).toEqual({
      ok: false,
      issue: 'Micro batch size per gpu: 0 has to be greater than 0',
    });
    expect(deriveBatch({ gradient_accumulation_steps: 2 }, 2)).toEqual({
      ok: false,
      issue: 'Either train_batch_size or train_micro_batch_size_per_gpu needs to be provided',
    });
  });
});

describe('optimizer types as DeepSpeed builds them', () => {
  const opt = (type: string, params: Record<string, unknown> = {}) =>
    ok({ train_batch_size: 8, optimizer: { type, params } }).fields;
  it("DeepSpeed's Adam is AdamW unless adam_w_mode is false; FusedAdam's weight_decay default is 0", () => {
    expect(opt('Adam')).toMatchObject({
      optimizer: 'adamw',
      lr: 1e-3,
      weightDecay: 0,
      adamBetas: [0.9, 0.999],
      adamEps: 1e-8,
    });
    expect(opt('adam', { adam_w_mode: false, weight_decay: 0.1 })).toMatchObject({
      optimizer: 'adam',
      weightDecay: 0.1,
    });
    expect(opt('ADAMW', { adam_w_mode: false })).toMatchObject({ optimizer: 'adamw' });
    // torch_adam builds torch.optim.AdamW itself, whose weight_decay default is 0.01.
    expect(opt('AdamW', { torch_adam: true })).toMatchObject({ optimizer: 'adamw', weightDecay: 0.01 });
    expect(opt('Adam', { torch_adam: true, adam_w_mode: false })).toMatchObject({ optimizer: 'adam', weightDecay: 0 });
  });

  it('SGD is torch.optim.SGD by its exact name; other optimizers are refused', () => {
    expect(opt('SGD', { lr: 0.01, momentum: 0.9 })).toMatchObject({
      optimizer: 'sgd',
      lr: 0.01,
      momentum: 0.9,
      weightDecay: 0,
    });
    expect(issues({ train_batch_size: 8, optimizer: { type: 'sgd' } })).toEqual([
      'optimizer.type "sgd" is not supported (torch.optim\'s name is SGD; DeepSpeed looks it up as written): webddp has Adam, AdamW (DeepSpeed\'s, any case) and SGD',
    ]);
    expect(issues({ train_batch_size: 8, optimizer: { type: 'Lamb' } })[0]).toMatch(
      /^optimizer.type "Lamb" is not supported/,
    );
  });

  it('defaults as current DeepSpeed: no zero_optimization is stage 0 (ddp), gradient_clipping 1.0; no scheduler set', () => {
    expect(ok({ train_micro_batch_size_per_gpu: 4 }).fields).toEqual({
      batchSize: 4,
      gradAccum: 1,
      mode: 'ddp',
      clipGradNorm: 1.0,
    });
    expect(ok({ train_micro_batch_size_per_gpu: 4 }).defaulted).toEqual(['clipGradNorm', 'mode']);
  });
});

describe('TrainConfig checks touched here', () => {
  it('schedule is none or a checked schedule; fp16 with bf16 is refused', () => {
    expect(validateConfig({ schedule: { type: 'StepLR', params: { step_size: 3, gamma: 0.5 } } }).ok).toBe(true);
    const bad = validateConfig({ schedule: { type: 'StepLR', params: {} }, fp16: true, bf16: true });
    expect(bad.ok ? [] : bad.issues.map((i) => i.message)).toEqual([
      "schedule must be 'none' or a schedule: schedule.params.step_size is required by StepLR " +
        '(got {"type":"StepLR","params":{}})',
    ]);
    const both = validateConfig({ fp16: true, bf16: true });
    expect(both.ok ? [] : both.issues.map((i) => i.message)).toEqual([
      'bfloat16 and fp16 modes cannot be simultaneously enabled',
    ]);
  });
});
