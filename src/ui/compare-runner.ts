// The compare view's measurement: the same configuration trained for a few steps in each of two
// modes, one after the other (the workers share one GPU, so never at once), keeping every worker's
// memory as the run reported it after its last step and its evaluation.
import type { Mode, TrainConfig } from '../config.ts';
import { PARALLEL_MODES, validateConfig } from '../parallel/index.ts';
import type { MemorySnapshot } from '../gpu/memory.ts';
import type { RunState } from './run-state.ts';
import { Session } from './session.ts';

export interface ModeResult {
  readonly mode: Mode;
  readonly config: TrainConfig;
  readonly state: RunState;
  readonly error?: string;
  /** Every worker's memory at the end (peak: its max_memory_allocated over the run). */
  readonly workers: readonly MemorySnapshot[];
  readonly steps: number;
  readonly meanStepMs: number;
}

/** The config one compare run uses: `base` in `mode`, at most `steps` steps, a small evaluation. */
export function compareConfig(base: TrainConfig, mode: Mode, steps: number): TrainConfig {
  const global = base.batchSize * base.workers;
  const r = validateConfig({
    ...base,
    mode,
    epochs: 1,
    trainLimit: global * steps,
    testLimit: Math.min(global, 256),
    checkEvery: 0,
    gpu0Bsz: PARALLEL_MODES[mode].usesGpu0Bsz ? Math.min(base.gpu0Bsz, global) : base.gpu0Bsz,
  });
  if (!r.ok) throw new RangeError(`${mode}: ${r.issues.map((i) => i.message).join('; ')}`);
  return r.config;
}

export interface CompareProgress {
  readonly mode: Mode;
  readonly index: number;
  readonly step: number;
  readonly steps: number;
  readonly detail?: string;
}

/** Runs the modes one after the other; a failing mode is reported with its error and the next one still runs. */
export async function runComparison(
  base: TrainConfig,
  modes: readonly Mode[],
  steps: number,
  dataset: string,
  onProgress: (p: CompareProgress) => void,
  register: (s: Session | null) => void,
): Promise<ModeResult[]> {
  const results: ModeResult[] = [];
  for (const [index, mode] of modes.entries()) {
    const config = compareConfig(base, mode, steps);
    let workers: MemorySnapshot[] = [];
    let done = 0;
    let ms = 0;
    let error: string | undefined;
    const session = new Session({
      event(e) {
        if (e.type === 'start') workers = e.ranks.map((r) => r.memory);
        if (e.type === 'step') {
          done++;
          ms += e.ms;
          workers = e.workers.map((w) => w.memory);
          onProgress({ mode, index, step: done, steps });
        }
        if (e.type === 'epoch') workers = e.workers.map((w) => w.memory);
      },
      state(s, detail) {
        if (s === 'failed') error = detail;
        onProgress({ mode, index, step: done, steps, ...(detail ? { detail } : {}) });
      },
    });
    register(session);
    const state = await session.run(config, dataset, { maxSteps: steps, sampleEveryMs: 0, recordTransfers: false });
    register(null);
    results.push({
      mode,
      config,
      state,
      ...(error ? { error } : {}),
      workers,
      steps: done,
      meanStepMs: done ? ms / done : NaN,
    });
    if (state === 'stopped') break;
  }
  return results;
}

/** How much worker 0's peak exceeds the mean peak of the others (1 = even). */
export function imbalance(workers: readonly MemorySnapshot[]): number {
  const [w0, ...rest] = workers;
  if (!w0 || rest.length === 0) return 1;
  const mean = rest.reduce((a, s) => a + s.peak, 0) / rest.length;
  return mean > 0 ? w0.peak / mean : Infinity;
}
