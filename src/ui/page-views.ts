// The run's views, each in its card, in page order after the lessons: training curves, memory, the
// ZeRO calculator, the ring, the shards, the timeline, rank 0's batch, the comparison and the log.
import type { TrainConfig } from '../config.ts';
import { section } from './page-frame.ts';
import { CompareView } from './views/compare.ts';
import { CurvesView } from './views/curves.ts';
import { LogView } from './views/log.ts';
import { MemoryView } from './views/memory.ts';
import { RingView } from './views/ring.ts';
import { SamplesView } from './views/samples.ts';
import { ShardsView } from './views/shards.ts';
import { TimelineView } from './views/timeline.ts';
import { ZeroCalcView } from './views/zero-calc.ts';

export interface ViewsHost {
  /** The dataset's class names (the dataset panel is locked during a run, so they are the run's). */
  classes(): readonly string[];
  config(): TrainConfig | null;
  dataset(): Promise<string>;
  busy(on: boolean): void;
}

export function runViews(parent: HTMLElement, host: ViewsHost) {
  const curves = new CurvesView(section(parent, 'training'));
  const memory = new MemoryView(section(parent, 'memory'));
  const calc = new ZeroCalcView(section(parent, 'calc'));
  const ring = new RingView(section(parent, 'ring'));
  const shards = new ShardsView(section(parent, 'shards'));
  const timeline = new TimelineView(section(parent, 'timeline'));
  const samples = new SamplesView(section(parent, 'samples'), () => host.classes());
  const compare = new CompareView(section(parent, 'compare'), host);
  const log = new LogView(section(parent, 'log'));
  return { curves, memory, calc, ring, shards, timeline, samples, compare, log };
}
