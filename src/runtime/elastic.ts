// Elastic recovery, as `torchrun --max-restarts`: when a rank dies, hangs, loses its device or its
// link breaks (a RankFailedError), every worker is closed, fresh ones are started from the last
// checkpoint this run saved (or from where the run started, when it has saved none) and the run
// continues, up to `maxRestarts` times; the next failure ends it. Checkpoints are exact (optimizer
// state, step counters, augmentation stream), so a recovered run ends with the parameters of one
// that never failed. A staged fault fires only in the first attempt.
import type { Snapshot } from '../checkpoint/checkpoint.ts';
import { Coordinator, type CoordinatorOptions, type RunOptions } from './coordinator.ts';
import { RankFailedError, type TrainEvent } from './events.ts';

export interface ElasticOptions extends CoordinatorOptions {
  /** Restarts allowed after a rank failure (0: the first failure ends the run). */
  readonly maxRestarts: number;
  readonly checkpoint?: RunOptions['checkpoint'];
  readonly maxSteps?: number;
}

export class ElasticRun {
  private current: Coordinator | null = null;
  private stopRequested = false;
  private interrupt = false;
  /** The last checkpoint saved by this run. */
  private last: Snapshot | undefined;

  constructor(private readonly o: ElasticOptions) {}

  /** The coordinator running now (null between attempts). */
  get coordinator(): Coordinator | null {
    return this.current;
  }

  /** Ends the run after the current step (with a checkpoint where one is configured); see Coordinator.stop. */
  stop(o: { readonly interrupt?: boolean } = {}): void {
    this.stopRequested = true;
    this.interrupt ||= o.interrupt === true;
    this.current?.stop(o);
  }

  async *run(): AsyncGenerator<TrainEvent> {
    const o = this.o;
    const checkpoint = o.checkpoint
      ? {
          every: o.checkpoint.every,
          save: async (s: Snapshot) => {
            const where = await (o.checkpoint?.save(s) ?? Promise.resolve(''));
            this.last = s;
            return where;
          },
        }
      : undefined;
    let resume = o.resume;
    for (let attempt = 0; ; attempt++) {
      try {
        this.current = await Coordinator.start({
          ...o,
          ...(resume ? { resume } : {}),
          ...(attempt === 0 && o.fault ? { fault: o.fault } : { fault: undefined }),
        });
        if (this.stopRequested) this.current.stop({ interrupt: this.interrupt });
        for await (const e of this.current.run({
          ...(checkpoint ? { checkpoint } : {}),
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
        })) {
          if (attempt > 0 && e.type === 'start') continue;
          yield e;
        }
        return;
      } catch (e) {
        if (!(e instanceof RankFailedError) || attempt >= o.maxRestarts || this.stopRequested) throw e;
        await this.close();
        resume = this.last ?? o.resume;
        yield {
          type: 'restart',
          attempt: attempt + 1,
          maxRestarts: o.maxRestarts,
          rank: e.rank,
          kind: e.kind,
          // the failure without the flight recorder's report, which the run goes on from
          message: `rank ${e.rank} failed during ${e.during}: ${e.reason}`,
          fromStep: resume?.position.globalStep ?? 0,
        };
      }
    }
  }

  /** Every rank's parameters (after run() has finished). */
  readParams(): Promise<Float32Array[]> {
    if (!this.current) throw new Error('no workers are running');
    return this.current.readParams();
  }

  async close(): Promise<void> {
    const c = this.current;
    this.current = null;
    await c?.close();
  }
}
