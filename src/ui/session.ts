// One training run of the page: starts a Coordinator (one module worker with its own WebGPU device
// per rank, reading the dataset from IndexedDB), forwards every event it yields, fetches a few
// images of rank 0's batch now and then, and turns pause/resume/stop into the coordinator's calls.
// A failing rank ends the run with the coordinator's error, which names the rank and the cause.
import type { TrainConfig } from '../config.ts';
import { Coordinator } from '../runtime/coordinator.ts';
import type { TrainEvent } from '../runtime/events.ts';
import type { BatchSample } from '../runtime/protocol.ts';
import type { RankFault } from '../runtime/fault.ts';
import { browserSpawner } from '../runtime/spawn-browser.ts';
import { t } from './i18n/index.ts';

export type RunState = 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'done' | 'stopped' | 'failed';

export interface RunSink {
  event(e: TrainEvent): void;
  sample?(s: BatchSample, at: { epoch: number; step: number }): void;
  state(s: RunState, detail?: string): void;
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
}

export class Session {
  private coordinator: Coordinator | null = null;
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
    let c: Coordinator | null = null;
    let end: [RunState, string?];
    try {
      c = await Coordinator.start({
        config,
        data: { kind: 'idb', dataset },
        spawn: browserSpawner(),
        recordTransfers: opts.recordTransfers ?? true,
        trace: true,
        ...(opts.initialParams ? { initialParams: opts.initialParams } : {}),
        ...(opts.fault ? { fault: opts.fault } : {}),
      });
      this.coordinator = c;
      if (this.stopRequested) c.stop();
      else this.set('running');
      let steps = 0;
      let lastSample = -Infinity;
      for await (const e of c.run()) {
        this.sink.event(e);
        if (e.type !== 'step') continue;
        steps++;
        if (opts.maxSteps !== undefined && steps >= opts.maxSteps) c.stop();
        const every = opts.sampleEveryMs ?? 2000;
        if (every > 0 && this.sink.sample && performance.now() - lastSample >= every) {
          lastSample = performance.now();
          const s = await c.sample(8);
          if (s) this.sink.sample(s, { epoch: e.epoch, step: e.step });
        }
      }
      if (opts.keepParams) this.params = (await c.readParams())[0] ?? null;
      end = [this.stopRequested ? 'stopped' : 'done'];
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      end = ['failed', message];
      this.set('stopping', t().run.closing(message));
    } finally {
      this.coordinator = null;
      await c?.close();
    }
    // The end is told only once the workers are closed, so a page that shows it can start again.
    this.set(...end);
    return this.current;
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
    this.coordinator?.stop();
    this.set('stopping', t().run.stoppingDetail);
  }

  private set(s: RunState, detail?: string): void {
    this.current = s;
    this.sink.state(s, detail);
  }
}
