// The guided path: every lesson in order, one file each. The table is keyed by LessonId, so the
// compiler refuses a lesson id without its lesson (and every lesson has its text in every language).
import { balancedDp } from './balanced-dp.ts';
import { checkpoint } from './checkpoint.ts';
import { cluster } from './cluster.ts';
import { ddpRing } from './ddp-ring.ts';
import { desync } from './desync.ts';
import { dpPileup } from './dp-pileup.ts';
import { failure } from './failure.ts';
import { fp16 } from './fp16.ts';
import type { Lesson } from './lesson.ts';
import { noSync } from './no-sync.ts';
import { placements } from './placements.ts';
import { sampler } from './sampler.ts';
import { zero } from './zero.ts';

export const LESSON_IDS = [
  'dp-pileup',
  'balanced-dp',
  'ddp-ring',
  'no-sync',
  'placements',
  'sampler',
  'checkpoint',
  'failure',
  'desync',
  'zero',
  'fp16',
  'cluster',
] as const;
export type LessonId = (typeof LESSON_IDS)[number];

export const LESSONS: { readonly [K in LessonId]: Lesson } = {
  'dp-pileup': dpPileup,
  'balanced-dp': balancedDp,
  'ddp-ring': ddpRing,
  'no-sync': noSync,
  placements,
  sampler,
  checkpoint,
  failure,
  desync,
  zero,
  fp16,
  cluster,
};

export const isLessonId = (x: unknown): x is LessonId => LESSON_IDS.some((id) => id === x);

export type { Lesson, LessonRun, LessonText, StepSplit } from './lesson.ts';
