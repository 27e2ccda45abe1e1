// The names of the training settings the page's form edits (config-fields.ts describes each), apart
// from the form so the texts (../i18n/) can be keyed by them without importing the form.
import type { TrainConfig } from '../../config.ts';

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
  | 'trainLimit'
  | 'gradAccum'
  | 'bucketCapMB'
  | 'clipGradNorm'
  | 'momentum'
  | 'weightDecay'
  | 'schedule'
  | 'fp16'
  | 'bf16';

/** The settings the form edits; the schedule as its text (`TYPE:name=value,...`, '' for none). */
export type FormValues = { readonly [K in FieldKey]?: K extends 'schedule' ? string : TrainConfig[K] };
