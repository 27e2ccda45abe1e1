// What a lesson of the guided path is: a prepared run (the form's settings, shareable in the page
// address), the view to look at, its text and questions in every language, and the check that the
// run reached the lesson's point, made on the numbers the page measured. A lesson whose run needs
// an engine feature this build lacks says so and offers no run (nothing is faked).
import type { MemorySnapshot } from '../../gpu/memory.ts';
import type { FormValues } from '../controls/field-key.ts';
import type { LifeSettings } from '../controls/life-settings.ts';
import type { DocKey, Lang } from '../i18n/index.ts';
import type { ExplainKey } from '../views/explain.ts';
import type { EngineFeature } from './features.ts';
import type { Placement } from '../../parallel/mode.ts';

export interface LessonText {
  readonly title: string;
  /** Paragraphs (`code` and **bold** marks allowed). */
  readonly intro: readonly string[];
  /** What to look at, once the run is going. */
  readonly look: readonly string[];
  readonly questions: readonly { readonly q: string; readonly a: string }[];
  /** What the run shows when it reaches the lesson's point. */
  readonly point: string;
}

/** What the page measured in the lesson's run, for its check. */
export interface LessonRun {
  /** The run's final state: 'done', 'stopped' or 'failed' (with the status text). */
  readonly state: string;
  readonly status: string;
  readonly memory: readonly MemorySnapshot[];
  /** Rank 0's loss per optimizer step. */
  readonly losses: readonly number[];
  /** The lr per optimizer step. */
  readonly lrs: readonly number[];
  readonly epochs: number;
  /** Indices that changed rank between the last two epochs, as a share of those compared (NaN: one epoch). */
  readonly moved: number;
  /** fp16: the loss scale of every step (NaN in an fp32 run). */
  readonly lossScales: readonly number[];
  /** Communication spans the timeline drew. */
  readonly commSpans: number;
  /** Checkpoints the run saved. */
  readonly checkpoints: number;
  /** The rank that failed, for every restart of the run's workers. */
  readonly restarts: readonly number[];
  /** The run continued a stored checkpoint. */
  readonly resumed: boolean;
  /** The engine's error when a rank failed and ended the run (English, as the engine wrote it), else null. */
  readonly failure: string | null;
  /** Its checkpoint was exported for torchrun (the button, after the run). */
  readonly exported: boolean;
  /** Rank 0's step split, from the last run finished in each placement since the page opened. */
  readonly splits: Partial<Record<Placement, StepSplit>>;
}

/** Rank 0's mean step over a run's steps after the first: its wall time and its wait in collectives. */
export interface StepSplit {
  readonly stepMs: number;
  readonly commMs: number;
  readonly steps: number;
}

export interface Lesson {
  /** The prepared run: form settings (tiny, so it ends in seconds on a software GPU) and extra page parameters. */
  readonly settings: FormValues;
  readonly testLimit?: number;
  readonly fault?: string;
  /** Compare every collective's fingerprint across ranks before it runs (the CLI's --debug-collectives). */
  readonly debugCollectives?: boolean;
  /** After a run that reached the point, train DDP against one worker at the whole batch and show the difference. */
  readonly equivalence?: boolean;
  /** Checkpoints and restarts (the rest: the page's defaults). */
  readonly life?: Partial<LifeSettings>;
  /** Where the workers run (default: each its own device). */
  readonly placement?: Placement;
  /** Documentation the lesson links to. */
  readonly docs: readonly DocKey[];
  /** The view to look at (a card id). */
  readonly view: ExplainKey;
  /** Engine features the run needs; with one missing, the lesson shows text only. */
  readonly needs?: readonly EngineFeature[];
  /** True when the run reached the lesson's point. */
  readonly reached: (run: LessonRun) => boolean;
  /** What the run measured, in words, shown with the point once it is reached. */
  readonly measured?: (run: LessonRun, lang: Lang) => string;
  readonly text: Readonly<Record<Lang, LessonText>>;
}
