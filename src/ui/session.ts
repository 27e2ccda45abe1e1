// One training run of the page: an ElasticRun around the Coordinator (one module worker with its own
// WebGPU device per rank, or every rank in one worker on one shared device, reading the dataset
// from IndexedDB), as the CLI's `webddp train` runs it:
// it saves checkpoints where asked, resumes one exactly, and restarts failed workers from the last
// checkpoint up to maxRestarts. It forwards every event it yields, fetches a few images of rank 0's
// batch now and then, and turns pause/resume/stop into the coordinator's calls. A failing rank
// (beyond the restarts) ends the run with the coordinator's error, which names the rank and the cause.
import type { Snapshot } from '../checkpoint/checkpoint.ts';
import type { TrainConfig } from '../config.ts';
import type { Coordinator } from '../runtime/coordinator.ts';
import { ElasticRun } from '../runtime/elastic.ts';
import type { RunOptions as CoordinatorRunOptions } from '../runtime/options.ts';
import { RankFailedError, type TrainEvent } from '../runtime/events.ts';
import type { BatchSample } from '../runtime/protocol.ts';
import type { RankFault } from '../runtime/fault.ts';
import { browserSpawner, colocatedBrowserSpawner } from '../runtime/spawn-browser.ts';
import { readParams } from './url-params.ts';
import type { Placement } from '../parallel/mode.ts';
import { t } from './i18n/index.ts';
import type { RunState } from './run-state.ts';

export interface RunSink {
  event(e: TrainEvent): void;
  sample?(s: BatchSample, at: { epoch: number; step: number }): void;
  state(s: RunState, detail?: string): void;
  /**
   * A rank failed and ended the run (told before the state 'failed'): the engine's error, with
   * every rank's collective flight recorders and their report when the coordinator gathered them.
   */
  failed?(e: RankFailedError): void;
}

export interface RunOptions {
  /** Stop after this many optimizer steps (the compare view measures a few steps of each mode). */
  readonly maxSteps?: number;
  /** Fetch rank 0's batch images at most this often (ms); 0: never. */
  readonly sampleEveryMs?: number;
  readonly recordTransfers?: boolean;
  /** Rank 0's starting parameters (a loaded checkpoint); absent: torch.manual_seed(config.seed) init. */
  readonly initialParams?: Float32Array;
  /** Stage a failure on one rank (the page's ?fault=, for teaching failure handling). */
  readonly fault?: RankFault;
  /** Read rank 0's final parameters before the workers close (for a checkpoint download). */
  readonly keepParams?: boolean;
  /** Save checkpoints (every N steps, at epoch ends, and where the run is stopped). */
  readonly checkpoint?: CoordinatorRunOptions['checkpoint'];
  /** Continue this checkpoint exactly (its config is the run's). */
  readonly resume?: Snapshot;
  /** torchrun's --max-restarts: restarts of the workers after a rank failure (default 0). */
  readonly maxRestarts?: number;
  /** Where the ranks live (default: each its own device; `shared-device`: one Web Worker, one device). */
  readonly placement?: Placement;
  /** Compare every collective's fingerprint across ranks before it runs (the CLI's --debug-collectives). */
  readonly debugCollectives?: boolean;
}

/** The page address's `tuning` (url-params.ts), read once: every run of the page uses it. */
const pageTuning = typeof location === 'undefined' ? undefined : readParams(location.search).tuning;

export class Session {
  private elastic: ElasticRun | null = null;
  private stopRequested = false;
  private current: RunState = 'starting';
  /** Rank 0's parameters at the end of the run (with keepParams), state_dict order. */
  params: Float32Array | null = null;

  constructor(private readonly sink: RunSink) {}

  get state(): RunState {
    return this.current;
  }

  /** Runs to the end (or a stop, or a failure); never throws: failures arrive as state 'failed'. */
  async run(config: TrainConfig, dataset: string, opts: RunOptions = {}): Promise<RunState> {
    this.set('starting', t().run.startingWorkers(config.workers));
    const run = new ElasticRun({
      config,
      data: { kind: 'idb', dataset },
      ...(opts.placement === 'shared-device'
        ? { spawn: colocatedBrowserSpawner(config.workers), colocated: true }
        : { spawn: browserSpawner() }),
      recordTransfers: opts.recordTransfers ?? true,
      ...(pageTuning ? { tuning: pageTuning } : {}),
      trace: true,
      maxRestarts: opts.maxRestarts ?? 0,
      ...(opts.initialParams ? { initialParams: opts.initialParams } : {}),
      ...(opts.fault ? { fault: opts.fault } : {}),
      ...(opts.resume ? { resume: opts.resume } : {}),
      ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
      ...(opts.debugCollectives ? { debugCollectives: true } : {}),
    });
    this.elastic = run;
    if (this.stopRequested) run.stop();
    let end: [RunState, string?];
    try {
      let steps = 0;
      let lastSample = -Infinity;
      // The status line says what the first minute is spent on: compiling, then each epoch's
      // first shard read and first step; from the first step on, plain "Training…".
      let awaitingStep = false;
      const busy = () => this.current === 'starting' || this.current === 'running';
      for await (const e of run.run()) {
        if (e.type === 'start' && !this.stopRequested) this.set('running', t().run.compiling(e.ranks.length));
        if (e.type === 'restart' && this.current !== 'stopping') this.set('starting', t().run.restarting(e.rank));
        if (e.type === 'epoch-start' && busy() && !this.stopRequested) {
          this.set('running', t().run.readingShard(e.epoch, e.shards.length, e.shards[0]?.length ?? 0));
          awaitingStep = true;
        }
        if (e.type === 'step' && awaitingStep) {
          awaitingStep = false;
          if (this.current === 'running') this.set('running');
        }
        this.sink.event(e);
        if (e.type !== 'step') continue;
        steps++;
        if (opts.maxSteps !== undefined && steps >= opts.maxSteps) run.stop();
        const every = opts.sampleEveryMs ?? 2000;
        const c = this.coordinator;
        if (c && every > 0 && this.sink.sample && performance.now() - lastSample >= every) {
          lastSample = performance.now();
          const s = await c.sample(8);
          if (s) this.sink.sample(s, { epoch: e.epoch, step: e.step });
        }
      }
      if (opts.keepParams) this.params = (await run.readParams())[0] ?? null;
      end = [this.stopRequested ? 'stopped' : 'done'];
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof RankFailedError) this.sink.failed?.(e);
      end = ['failed', message];
      this.set('stopping', t().run.closing(message));
    } finally {
      this.elastic = null;
      await run.close();
    }
    // The end is told only once the workers are closed, so a page that shows it can start again.
    this.set(...end);
    return this.current;
  }

  /** The coordinator of the current attempt (null between a failure and the restart). */
  private get coordinator(): Coordinator | null {
    return this.elastic?.coordinator ?? null;
  }

  /** 'pausing' until the steps already asked for have finished and been reported, then 'paused'. */
  pause(): void {
    if (this.current !== 'running' || !this.coordinator) return;
    const held = this.coordinator.pause();
    this.set('pausing', t().run.pausingDetail);
    void held.then(() => {
      if (this.current === 'pausing') this.set('paused', t().run.pausedDetail);
    });
  }

  resume(): void {
    if ((this.current !== 'paused' && this.current !== 'pausing') || !this.coordinator) return;
    this.coordinator.resume();
    this.set('running');
  }

  /** Ends the run after the current step (then the coordinator evaluates and reports the epoch). */
  stop(): void {
    if (this.current === 'done' || this.current === 'stopped' || this.current === 'failed') return;
    this.stopRequested = true;
    this.elastic?.stop();
    this.set('stopping', t().run.stoppingDetail);
  }

  private set(s: RunState, detail?: string): void {
    this.current = s;
    this.sink.state(s, detail);
  }
}
