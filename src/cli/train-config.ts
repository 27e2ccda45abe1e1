// `webddp train`'s one TrainConfig from its flags and, with --deepspeed-config FILE, a DeepSpeed
// config. As with DeepSpeed, the file is the source of truth for what it sets: a flag that sets
// the same field to another value is refused naming both (the flag and the file's key); a flag
// for something the file leaves alone (--epochs, --workers, which is DeepSpeed's world size) applies.
import { DEFAULT_CONFIG, type TrainConfig } from '../config.ts';
import { validateConfig } from '../parallel/index.ts';
import { readRegularFile } from '../data/file-node.ts';
import { parseDeepSpeedConfig, type DeepSpeedFields } from '../deepspeed/config.ts';
import { parseConfigText } from '../deepspeed/json-text.ts';
import { MAX_JSON_BYTES } from '../input/json.ts';
import { describeSchedule, type LrScheduleConfig } from '../schedule/index.ts';
import { parseScheduleFlag } from '../schedule/flag.ts';
import { UsageError } from './command.ts';
import { intFlag, numberFlag } from './flags.ts';

export type TrainFlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** Where each field comes from in a ds_config, for conflict messages. */
const DS_KEY: Partial<Record<keyof TrainConfig, string>> = {
  batchSize: 'train_micro_batch_size_per_gpu (from train_batch_size / gradient_accumulation_steps / world size)',
  gradAccum: 'gradient_accumulation_steps',
  optimizer: 'optimizer.type',
  lr: 'optimizer.params.lr',
  momentum: 'optimizer.params.momentum',
  weightDecay: 'optimizer.params.weight_decay',
  mode: 'zero_optimization.stage',
  clipGradNorm: 'gradient_clipping',
  schedule: 'scheduler',
  stepsPerPrint: 'steps_per_print',
  fp16: 'fp16.enabled',
  bf16: 'bf16.enabled',
  reduceBucketSize: 'zero_optimization.reduce_bucket_size',
};

/** The flag each field is set by, for conflict messages. */
const FLAG: Partial<Record<keyof TrainConfig, string>> = {
  batchSize: '--batch-size',
  gradAccum: '--grad-accum',
  optimizer: '--optimizer',
  lr: '--lr',
  momentum: '--momentum',
  weightDecay: '--weight-decay',
  mode: '--mode',
  clipGradNorm: '--clip-grad-norm',
  schedule: '--schedule',
  fp16: '--fp16',
  bf16: '--bf16',
  reduceBucketSize: '--reduce-bucket-size',
};

const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

/** The explicitly given flags as TrainConfig fields (no defaults filled in). */
export function fromFlags(values: TrainFlagValues): Partial<Record<keyof TrainConfig, unknown>> {
  const int = (flag: string, min = 0) => {
    const v = str(values[flag]);
    return v === undefined ? undefined : intFlag(`--${flag}`, v, min);
  };
  const real = (flag: string, zero = true) => {
    const v = str(values[flag]);
    return v === undefined ? undefined : numberFlag(`--${flag}`, v, zero);
  };
  const timeout = real('step-timeout');
  const scheduleText = str(values.schedule);
  let schedule: unknown;
  if (scheduleText !== undefined) {
    const r = parseScheduleFlag('--schedule', scheduleText);
    if (!r.ok) throw new UsageError(r.issues.join('; '));
    schedule = r.config;
  }
  return {
    workers: int('workers', 1),
    mode: str(values.mode),
    epochs: int('epochs', 1),
    batchSize: int('batch-size', 1),
    optimizer: str(values.optimizer),
    lr: real('lr', false),
    momentum: real('momentum'),
    weightDecay: real('weight-decay'),
    seed: int('seed'),
    width: real('width', false),
    augment: values.augment,
    shuffle: values['no-shuffle'] ? false : undefined,
    dropLast: values['drop-last'],
    trainLimit: int('train-limit'),
    testLimit: int('test-limit'),
    gpu0Bsz: int('gpu0-bsz'),
    bucketCapMB: real('bucket-cap-mb', false),
    gradAccum: int('grad-accum', 1),
    clipGradNorm: real('clip-grad-norm'),
    checkEvery: int('check-every'),
    stepTimeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
    schedule,
    fp16: values.fp16,
    bf16: values.bf16,
    reduceBucketSize: int('reduce-bucket-size', 1),
  };
}

interface DeepSpeedRead {
  readonly fields: DeepSpeedFields;
  readonly defaulted: readonly (keyof TrainConfig)[];
  readonly notes: string[];
}

async function readDeepSpeed(file: string, world: number): Promise<DeepSpeedRead> {
  let text: string;
  try {
    // a regular file only: a FIFO with no writer would hang a plain read
    text = new TextDecoder().decode(await readRegularFile(file, MAX_JSON_BYTES));
  } catch (e) {
    throw new UsageError(`--deepspeed-config ${file}: cannot read it (${(e as Error).message})`);
  }
  const json = parseConfigText(text);
  if (!json.ok) throw new UsageError(`--deepspeed-config ${file}: ${json.issue}`);
  const r = parseDeepSpeedConfig(json.value, world);
  if (!r.ok) throw new UsageError(`--deepspeed-config ${file}: ${r.issues.join('; ')}`);
  const s = r.settings;
  const notes = [
    `DeepSpeed config ${file}: train_batch_size ${s.trainBatchSize} = micro-batch ${String(s.fields.batchSize)} x ` +
      `accumulation ${String(s.fields.gradAccum)} x ${world} workers`,
    ...s.notes,
  ];
  if (s.fields.schedule && s.fields.schedule !== 'none') notes.push(`scheduler ${describeSchedule(s.fields.schedule)}`);
  return { fields: s.fields, defaulted: s.defaulted, notes };
}

/** What fp16 does in this run, said plainly (which arithmetic the device gives: the `half arithmetic` line). */
export function describeFp16(c: TrainConfig): string {
  const scale =
    c.fp16LossScale > 0
      ? `static loss scale ${c.fp16LossScale}`
      : `dynamic loss scale from 2^${c.fp16InitialScalePower} (window ${c.fp16LossScaleWindow}, hysteresis ` +
        `${c.fp16Hysteresis}, min ${c.fp16MinLossScale})`;
  return (
    `fp16 mixed precision: fp16 parameters, gradients and saved activations (the input, conv and pool outputs) ` +
    `stored as packed halves (pack2x16float), gradients all-reduced as fp16; fp32 master weights and optimizer; ` +
    `${scale}. Arithmetic: where the device has shader-f16 and f16 x f16 -> f32 subgroup matrices (the ` +
    `'half arithmetic' line), the products the tuning's halfMatrix names multiply halves with float32 ` +
    `accumulation; every other kernel, and all of them elsewhere, computes in float32 on the unpacked halves; ` +
    `activation gradients, fc1's output and the logits stay float32, softmax, the loss and the optimizer are float32`
  );
}

/**
 * The validated TrainConfig, the log cadence (--log-every, else the config's steps_per_print, else
 * 50 steps) and lines to log about how a DeepSpeed config was read.
 */
export async function buildTrainConfig(
  values: TrainFlagValues,
): Promise<{ config: TrainConfig; logEvery: number; notes: string[] }> {
  const flags = fromFlags(values);
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  const file = str(values['deepspeed-config']);
  let merged: Record<string, unknown> = given;
  let notes: string[] = [];
  if (file !== undefined) {
    const ds = await readDeepSpeed(file, (flags.workers as number | undefined) ?? DEFAULT_CONFIG.workers);
    const conflicts = Object.entries(ds.fields)
      .filter(([k, v]) => k in given && JSON.stringify(given[k]) !== JSON.stringify(v))
      .map(([k, v]) => {
        const key = k as keyof TrainConfig;
        const show = (x: unknown) =>
          key === 'schedule' && typeof x === 'object' ? describeSchedule(x as LrScheduleConfig) : JSON.stringify(x);
        const why = ds.defaulted.includes(key) ? " (DeepSpeed's default when the file leaves it out)" : '';
        return `${FLAG[key] ?? key} ${show(given[k])} conflicts with ${file}: ${DS_KEY[key] ?? key} gives ${show(v)}${why}`;
      });
    if (conflicts.length > 0) throw new UsageError(conflicts.join('; '));
    merged = { ...given, ...ds.fields };
    notes = ds.notes;
  }
  if (merged.lr === undefined && (merged.optimizer === 'adam' || merged.optimizer === 'adamw'))
    merged = { ...merged, lr: 1e-3 }; // torch.optim.Adam's default, rather than SGD's 0.01
  const v = validateConfig(merged);
  if (!v.ok) throw new UsageError(v.issues.map((i) => i.message).join('; '));
  if (v.config.fp16) notes.push(describeFp16(v.config));
  if (v.config.bf16)
    notes.push(
      'bf16 mixed precision: bfloat16 parameters and gradients stored as packed pairs (the upper 16 bits of a ' +
        'float32, rounded to nearest even), all-reduced / reduce-scattered as bf16; fp32 master weights and ' +
        'optimizer; no loss scaling. Storage only: the kernels compute in float32 and activations stay float32',
    );
  const logFlag = str(values['log-every']);
  const logEvery = logFlag === undefined ? undefined : intFlag('--log-every', logFlag, 0);
  const perPrint = v.config.stepsPerPrint;
  if (logEvery !== undefined && perPrint > 0 && logEvery !== perPrint)
    throw new UsageError(
      `--log-every ${logEvery} conflicts with ${file ?? 'the config'}: steps_per_print gives ${perPrint}`,
    );
  return { config: v.config, logEvery: logEvery ?? (perPrint > 0 ? perPrint : 50), notes };
}
