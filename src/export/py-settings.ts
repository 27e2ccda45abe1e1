// The generated part of the exported train.py: the run's settings as Python constants, the
// optimizer it used (make_optimizer: torch.optim.SGD / Adam / AdamW with the run's hyperparameters)
// and its learning-rate schedule (make_scheduler: PyTorch's own scheduler for LinearLR, StepLR,
// CosineAnnealingLR and OneCycleLR; DeepSpeed's warmup schedules through webddp_schedules.py).
import type { TrainConfig } from '../config.ts';
import type { TrainPosition } from '../checkpoint/checkpoint.ts';
import type { ModelSpec } from '../nn/spec.ts';

/** A Python expression written as it is (a name). */
class Raw {
  constructor(readonly text: string) {}
}

/** A Python literal for a JSON-like value (numbers as JavaScript prints them are valid Python). */
function py(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`no Python literal for ${v}`);
    return String(v);
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `(${v.map(py).join(', ')}${v.length === 1 ? ',' : ''})`;
  throw new TypeError(`no Python literal for ${typeof v}`);
}

const kwargs = (o: Readonly<Record<string, unknown>>) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${py(v)}`)
    .join(', ');

function optimizerLine(c: TrainConfig): string {
  if (c.optimizer === 'sgd')
    return `torch.optim.SGD(params, ${kwargs({ lr: c.lr, momentum: c.momentum, dampening: 0, weight_decay: c.weightDecay, nesterov: false })})`;
  const name = c.optimizer === 'adam' ? 'Adam' : 'AdamW';
  return `torch.optim.${name}(params, ${kwargs({ lr: c.lr, betas: c.adamBetas, eps: c.adamEps, weight_decay: c.weightDecay, amsgrad: false })})`;
}

/** The scheduler expression over `optimizer`, or None; `total_steps` (the run's length) stands in for a cycle length the run left out. */
function schedulerLine(c: TrainConfig): string {
  const total = new Raw('total_steps');
  const s = c.schedule;
  if (s === 'none') return 'None';
  const lr = 'torch.optim.lr_scheduler';
  switch (s.type) {
    case 'LinearLR':
    case 'StepLR':
    case 'CosineAnnealingLR':
      return `${lr}.${s.type}(optimizer, ${kwargs(s.params)})`;
    case 'OneCycleLR': {
      const p = s.params;
      const cycle =
        p.total_steps !== undefined
          ? { total_steps: p.total_steps }
          : p.epochs !== undefined && p.steps_per_epoch !== undefined
            ? { epochs: p.epochs, steps_per_epoch: p.steps_per_epoch }
            : { total_steps: total };
      const { total_steps: _t, epochs: _e, steps_per_epoch: _s, ...rest } = p;
      return `${lr}.OneCycleLR(optimizer, ${kwargs({ ...cycle, ...rest })})`;
    }
    case 'WarmupLR':
      return `DeepSpeedWarmup(optimizer, "WarmupLR", ${kwargs(s.params)})`;
    case 'WarmupDecayLR':
    case 'WarmupCosineLR': {
      const params = { ...s.params, total_num_steps: s.params.total_num_steps ?? total };
      return `DeepSpeedWarmup(optimizer, ${py(s.type)}, ${kwargs(params)})`;
    }
  }
}

export interface SettingsInput {
  readonly config: TrainConfig;
  readonly position: TrainPosition;
  readonly spec: ModelSpec;
  /** The default of train.py's --data: 'synthetic' or a path. */
  readonly data: string;
}

/** The Python text that replaces `# @SETTINGS@` in train.py. */
export function pySettings({ config: c, position: p, spec, data }: SettingsInput): string {
  const total = c.epochs * p.stepsPerEpoch;
  const lines = [
    `WORLD_SIZE = ${c.workers}  # webddp --workers (mode ${c.mode}; here DistributedDataParallel)`,
    `BATCH_SIZE = ${c.batchSize}  # per rank and micro-batch (--batch-size)`,
    `GRAD_ACCUM = ${c.gradAccum}  # micro-batches per optimizer step (--grad-accum)`,
    `CLIP_GRAD_NORM = ${py(c.clipGradNorm)}  # clip_grad_norm_ max norm, 0: off (--clip-grad-norm)`,
    `EPOCHS = ${c.epochs}`,
    `SEED = ${c.seed}  # DistributedSampler seed and augmentation stream (--seed)`,
    `SHUFFLE = ${py(c.shuffle)}`,
    `DROP_LAST = ${py(c.dropLast)}`,
    `AUGMENT = ${py(c.augment)}  # RandomCrop(32, padding=4) + RandomHorizontalFlip with webddp's draws`,
    `TRAIN_LIMIT = ${c.trainLimit}  # the first N training records (0: all)`,
    `CHANNELS = (${spec.c1}, ${spec.c2}, ${spec.hidden})  # conv1, conv2, fc1 widths (--width ${c.width})`,
    `DATA = ${py(data)}`,
    `OPTIMIZER = ${py(c.optimizer)}`,
    `# where the checkpoint stands: the next step is START_STEP of START_EPOCH; GLOBAL_STEP optimizer steps are done`,
    `START_EPOCH, START_STEP, GLOBAL_STEP = ${p.epoch}, ${p.step}, ${p.globalStep}`,
    `STEPS_PER_EPOCH = ${p.stepsPerEpoch}  # with WORLD_SIZE ranks; the schedule's run is EPOCHS x this = ${total} steps`,
    '',
    '',
    'def make_optimizer(params):',
    `    return ${optimizerLine(c)}`,
    '',
    '',
    'def make_scheduler(optimizer, total_steps=EPOCHS * STEPS_PER_EPOCH):',
    '    """Stepped once per optimizer step, as webddp steps its schedule; total_steps: the run\'s optimizer steps."""',
    `    return ${schedulerLine(c)}`,
  ];
  return lines.join('\n');
}
