// The training settings the page offers, with their kinds and ranges (labels and hints are in
// ../i18n/). Validation is not here: every value goes through validateConfig (src/parallel/index.ts),
// the same check the CLI and the workers use, and its messages are shown at the control.
import { MAX_WORKERS, MODES, OPTIMIZERS, type Mode } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import { MAX_WIDTH, MIN_WIDTH } from '../../nn/spec.ts';
import { t } from '../i18n/index.ts';
import type { FieldKey } from './field-key.ts';

export interface FieldSpec {
  readonly key: FieldKey;
  readonly kind: 'int' | 'float' | 'select' | 'check' | 'text';
  /** Under "More training controls" (closed until used). */
  readonly more?: boolean;
  readonly options?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  readonly step?: string;
  /** Shown only when this returns true for the current values. */
  readonly when?: (v: { mode: Mode; optimizer: string }) => boolean;
}

export const MODE_SHORT: Record<Mode, string> = {
  ddp: 'DDP',
  dp: 'DP',
  'balanced-dp': 'BalancedDP',
  zero1: 'ZeRO-1',
  zero2: 'ZeRO-2',
  zero3: 'ZeRO-3',
};

/** A mode's full name in the page's language. */
export function modeName(m: Mode): string {
  return t().form.modeNames[m];
}

/** A field's label in the page's language. */
export function fieldLabel(key: FieldKey): string {
  return t().form.labels[key];
}

/** A field's hint in the page's language ('' for none). */
export function fieldHint(key: FieldKey): string {
  const hint = t().form.hints[key];
  return typeof hint === 'function' ? hint(MAX_WORKERS) : hint;
}

/** The text of a select's option. */
export function optionText(key: FieldKey, value: string): string {
  if (key === 'mode') return modeName(value as Mode);
  if (key === 'optimizer') return t().form.optimizers[value as (typeof OPTIMIZERS)[number]];
  return value;
}

export const FIELDS: readonly FieldSpec[] = [
  { key: 'mode', kind: 'select', options: MODES },
  { key: 'workers', kind: 'int', min: 1, max: MAX_WORKERS },
  { key: 'batchSize', kind: 'int', min: 1, max: 4096 },
  { key: 'gpu0Bsz', kind: 'int', min: 0, max: 4096 * MAX_WORKERS, when: (v) => PARALLEL_MODES[v.mode].usesGpu0Bsz },
  { key: 'optimizer', kind: 'select', options: OPTIMIZERS },
  { key: 'lr', kind: 'float', min: 0, max: 10, step: 'any' },
  { key: 'epochs', kind: 'int', min: 1, max: 1000 },
  { key: 'width', kind: 'float', min: MIN_WIDTH, max: MAX_WIDTH, step: 'any' },
  { key: 'trainLimit', kind: 'int', min: 0, max: 10_000_000 },
  { key: 'seed', kind: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
  { key: 'augment', kind: 'check' },
  { key: 'gradAccum', kind: 'int', min: 1, max: 64, more: true },
  {
    key: 'bucketCapMB',
    kind: 'float',
    min: 0,
    max: 1024,
    step: 'any',
    more: true,
    when: (v) => PARALLEL_MODES[v.mode].usesBucketCap,
  },
  { key: 'clipGradNorm', kind: 'float', min: 0, max: 1e6, step: 'any', more: true },
  { key: 'momentum', kind: 'float', min: 0, max: 0.999, step: 'any', more: true, when: (v) => v.optimizer === 'sgd' },
  { key: 'weightDecay', kind: 'float', min: 0, max: 1, step: 'any', more: true },
  { key: 'schedule', kind: 'text', more: true },
  { key: 'fp16', kind: 'check', more: true },
  { key: 'bf16', kind: 'check', more: true, when: (v) => PARALLEL_MODES[v.mode].precisions.includes('bf16') },
];
