// The training settings the page offers, with their labels, kinds and hints. Validation is not
// here: every value goes through validateConfig (src/parallel/index.ts), the same check the CLI and the
// workers use, and its messages are shown at the control.
import { MAX_WORKERS, MODES, OPTIMIZERS, type Mode, type TrainConfig } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import { MAX_WIDTH, MIN_WIDTH } from '../../nn/spec.ts';

export type FieldKey =
  | 'workers'
  | 'mode'
  | 'gpu0Bsz'
  | 'batchSize'
  | 'lr'
  | 'optimizer'
  | 'epochs'
  | 'width'
  | 'augment'
  | 'seed'
  | 'trainLimit';

export interface FieldSpec {
  readonly key: FieldKey;
  readonly label: string;
  readonly kind: 'int' | 'float' | 'select' | 'check';
  readonly hint?: string;
  readonly options?: readonly { readonly value: string; readonly text: string }[];
  readonly min?: number;
  readonly max?: number;
  readonly step?: string;
  /** Shown only when this returns true for the current mode. */
  readonly when?: (mode: Mode) => boolean;
}

export const MODE_NAMES: Record<Mode, string> = {
  ddp: 'DistributedDataParallel',
  dp: 'DataParallel',
  'balanced-dp': 'BalancedDataParallel',
  zero1: 'ZeRO-1 (shard optimizer)',
  zero2: 'ZeRO-2 (+ shard gradients)',
  zero3: 'ZeRO-3 (+ shard parameters)',
};

export const MODE_SHORT: Record<Mode, string> = {
  ddp: 'DDP',
  dp: 'DP',
  'balanced-dp': 'BalancedDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
};

export const FIELDS: readonly FieldSpec[] = [
  { key: 'mode', label: 'Mode', kind: 'select', options: MODES.map((m) => ({ value: m, text: MODE_NAMES[m] })) },
  {
    key: 'workers',
    label: 'Workers',
    kind: 'int',
    min: 1,
    max: MAX_WORKERS,
    hint: `1 to ${MAX_WORKERS}; each is a Web Worker with its own WebGPU device`,
  },
  {
    key: 'batchSize',
    label: 'Batch per worker',
    kind: 'int',
    min: 1,
    max: 4096,
    hint: 'DP splits a global batch of workers × this',
  },
  {
    key: 'gpu0Bsz',
    label: 'gpu0_bsz',
    kind: 'int',
    min: 0,
    max: 4096 * MAX_WORKERS,
    hint: 'samples worker 0 takes; the others share the rest',
    when: (m) => PARALLEL_MODES[m].usesGpu0Bsz,
  },
  {
    key: 'optimizer',
    label: 'Optimizer',
    kind: 'select',
    options: OPTIMIZERS.map((o) => ({
      value: o,
      text: o === 'sgd' ? 'SGD (momentum 0.9)' : o === 'adam' ? 'Adam' : 'AdamW',
    })),
  },
  { key: 'lr', label: 'Learning rate', kind: 'float', min: 0, max: 10, step: 'any' },
  { key: 'epochs', label: 'Epochs', kind: 'int', min: 1, max: 1000 },
  {
    key: 'width',
    label: 'Model width',
    kind: 'float',
    min: MIN_WIDTH,
    max: MAX_WIDTH,
    step: 'any',
    hint: '1 = the tutorial SimpleCNN; 2 doubles every channel',
  },
  {
    key: 'trainLimit',
    label: 'Train records',
    kind: 'int',
    min: 0,
    max: 10_000_000,
    hint: 'use the first N records (0: all)',
  },
  {
    key: 'seed',
    label: 'Seed',
    kind: 'int',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    hint: 'initial weights = torch.manual_seed(seed); SimpleCNN()',
  },
  { key: 'augment', label: 'Augment (random crop + flip)', kind: 'check' },
];

/** The settings the form edits, as a partial TrainConfig. */
export type FormValues = Partial<Pick<TrainConfig, FieldKey>>;
