// The coordinator: spawns one worker per rank (each acquires its own GPUDevice; with --colocate the
// spawner puts every rank in one worker sharing one device), sends each its links and init
// (rank-wiring.ts: the ring of MessageChannels, shared-memory rings where asked; DataParallel:
// channels from device 0 to each replica), then drives the ranks step by step and yields what happens. Gradients flow worker to worker; the
// coordinator only sees logs. A rank that throws, exits, loses its device or stops answering ends
// the run within a bounded time with a RankFailedError naming it; the others are aborted first, so
// nothing continues on half-reduced gradients.
import { transfer } from 'comlink';
import type { TrainConfig } from '../config.ts';
import { ReplicaMismatchError, workerStat, type TrainEvent } from './events.ts';
import type { BatchSample, RankInfo, RankStepLog } from './protocol.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import { learningRates } from '../schedule/index.ts';
import { WorkerGroup, type WorkerHandle } from './worker-group.ts';
import type { Snapshot, TrainPosition } from '../checkpoint/checkpoint.ts';
import type { CoordinatorOptions, RunOptions } from './options.ts';
import { gatherOptimizer, snapshotOf } from './snapshot.ts';
import { wireRanks } from './rank-wiring.ts';
import { Interrupt, sumEvals } from './evaluation.ts';
import { EpochLedger } from './epoch-ledger.ts';
import { StepWindow } from './step-window.ts';

export type { SpawnWorker, WorkerHandle } from './worker-group.ts';

export type { CoordinatorOptions, RunOptions } from './options.ts';

export class Coordinator {
  private stopRequested = false;
  /** A signal's stop: no evaluation is started or waited for once it comes. */
  private readonly interrupted = new Interrupt();
  private pauseGate: { promise: Promise<void>; release: () => void; held: () => void } | null = null;

  private constructor(
    readonly config: TrainConfig,
    private readonly group: WorkerGroup,
    readonly ranks: readonly RankInfo[],
    /** Where run() starts (a resumed checkpoint's position). */
    private readonly from: TrainPosition = { epoch: 0, step: 0, globalStep: 0, stepsPerEpoch: 0 },
    /** The ranks share one device (CoordinatorOptions.colocated). */
    private readonly colocated = false,
    /** The running epoch's sample ledger (continuing the resumed checkpoint's, where it has one). */
    private readonly ledger = new EpochLedger(config, from),
    /** The step (counted as the ranks count theirs) at which a rank stages a failure (CoordinatorOptions.fault). */
    private readonly faultStep = -1,
  ) {}

  private all<T>(what: string, call: (h: WorkerHandle, rank: number) => Promise<T>, timeoutMs?: number): Promise<T[]> {
    return this.group.all(what, call, timeoutMs);
  }

  /** Spawns and initialises every rank (their device, trainer and links). */
  static async start(o: CoordinatorOptions): Promise<Coordinator> {
    const workers = Array.from({ length: o.config.workers }, (_, r) => o.spawn(r));
    const wiring = wireRanks(o);
    const group = new WorkerGroup(workers, o.config.stepTimeoutMs);
    const probe = new Coordinator(o.config, group, []);
    const ranks = await probe
      .all(
        'init',
        (h, r) => {
          const { init, ports } = wiring.init(r);
          return h.api.init(transfer(init, ports));
        },
        10 * 60_000,
      )
      .catch(async (e: unknown) => {
        await probe.close();
        throw e;
      });
    return new Coordinator(
      o.config,
      group,
      ranks,
      o.resume?.position,
      o.colocated ?? false,
      undefined,
      o.fault?.step ?? -1,
    );
  }

  /**
   * Holds the run before its next step. Steps already asked for (one more in a pipelined mode) still
   * complete and are reported; the returned promise settles once the run is held with no step
   * running, or once it resumes, stops or ends first.
   */
  pause(): Promise<void> {
    this.pauseGate?.release();
    let release = () => {};
    let held = () => {};
    const settled = new Promise<void>((r) => {
      held = r;
    });
    const promise = new Promise<void>((r) => {
      release = () => {
        held();
        r();
      };
    });
    this.pauseGate = { promise, release, held };
    return settled;
  }

  resume(): void {
    this.pauseGate?.release();
    this.pauseGate = null;
  }

  /**
   * Ends the run after the current step (with its checkpoint). `interrupt` (SIGINT, SIGTERM): the
   * epoch's evaluation is skipped, or abandoned if it is running, so the run ends within a step.
   */
  stop(o: { readonly interrupt?: boolean } = {}): void {
    this.stopRequested = true;
    if (o.interrupt) this.interrupted.fire();
    this.resume();
  }

  get paused(): boolean {
    return this.pauseGate !== null;
  }

  /**
   * Trains for config.epochs epochs (from a resumed checkpoint's position), yielding events;
   * evaluates after each epoch; saves checkpoints as `o` asks.
   */
  async *run(o: RunOptions = {}): AsyncGenerator<TrainEvent> {
    const c = this.config;
    yield { type: 'start', config: c, ranks: this.ranks };
    let globalStep = this.from.globalStep;
    // Pipelined modes ask for the next steps while step k runs (step-window.ts); a step's time is
    // then from the previous step's end to its own.
    const pipelined = PARALLEL_MODES[c.mode].pipelines?.(c, this.colocated) ?? false;
    const asking = new StepWindow<RankStepLog[]>(pipelined, this.from.globalStep);
    let skipped = 0;
    let lrAt: ((step: number) => number) | undefined;
    const [every, maxSteps] = [o.checkpoint?.every ?? 0, o.maxSteps ?? Infinity];
    let saved = -1;
    const save = async (epoch: number, step: number, steps: number): Promise<TrainEvent[]> => {
      if (!o.checkpoint || saved === globalStep) return [];
      saved = globalStep;
      const position = { epoch, step, globalStep, stepsPerEpoch: steps };
      return [{ type: 'checkpoint', ...position, where: await o.checkpoint.save(await this.snapshot(position)) }];
    };
    for (let epoch = this.from.epoch; epoch < c.epochs && !this.stopRequested; epoch++) {
      const fromStep = epoch === this.from.epoch ? this.from.step : 0;
      const infos = await this.all(`beginEpoch(${epoch})`, (h) => h.api.beginEpoch(epoch, fromStep));
      const steps = infos[0]?.steps ?? 0;
      this.ledger.begin(epoch, fromStep, steps, infos[0]?.datasetSize ?? 0);
      lrAt ??= learningRates(c.schedule, c.lr, c.epochs * steps);
      yield {
        type: 'epoch-start',
        epoch,
        steps,
        shards: infos.map((i) => i.indices),
        datasetSize: infos.reduce((a, i) => a + i.samples, 0),
      };
      const t0 = performance.now();
      let lossSum = 0,
        correct = 0,
        samples0 = 0,
        samplesAll = 0;
      // The replica check after the global step `g` (0-based) of this epoch's step `step`: a pipelined
      // run takes it inside that step (each rank copies its parameters once the step is submitted,
      // while the next steps are already queued), any other between steps.
      const epochStart = globalStep - fromStep;
      const checksAfter = (step: number) => c.checkEvery > 0 && (epochStart + step + 1) % c.checkEvery === 0;
      const ask = (step: number) => {
        const opts = pipelined && checksAfter(step) ? { checksum: true } : undefined;
        return this.all(`step ${step} of epoch ${epoch}`, (h) => h.api.step(epoch, step, opts));
      };
      let prevEnd = -Infinity;
      // A checkpoint, the step limit or (not pipelined) a replica check after the step `j` steps
      // from now (the epoch's last step: its end saves): no later step may be in flight then, or a
      // rank's state could be a step ahead.
      const pauseAfter = (step: number, j: number) =>
        globalStep + j + 1 >= maxSteps ||
        (every > 0 && (globalStep + j + 1) % every === 0 && step + j < steps - 1) ||
        (!pipelined && checksAfter(step + j)) ||
        // a staged failure hits its own step: nothing else in flight when it is asked for
        asking.asked === this.faultStep;
      let next = fromStep;
      for (let step = fromStep; step < steps; step++) {
        if (asking.idle && this.pauseGate) {
          this.pauseGate.held();
          await this.pauseGate.promise;
        }
        if (asking.idle && this.stopRequested) break;
        // the following steps too where the mode pipelines, none past a pause
        const cur = asking.current(
          step,
          steps,
          ask,
          (j) => !this.pauseGate && !this.stopRequested && !pauseAfter(step, j),
        );
        if (!cur) break;
        const last = await cur.p;
        const end = performance.now();
        const ms = end - Math.max(cur.at, prevEnd);
        prevEnd = end;
        const r0 = last[0];
        if (!r0) break;
        const samples = PARALLEL_MODES[c.mode].stepSamples(last.map((l) => l.samples));
        lossSum += r0.loss * r0.samples;
        correct += r0.correct;
        samples0 += r0.samples;
        samplesAll += samples;
        globalStep++;
        next = step + 1;
        yield {
          type: 'step',
          epoch,
          step,
          steps,
          loss: r0.loss,
          lr: lrAt(globalStep - 1 - skipped),
          rankLosses: last.map((l) => l.loss),
          accuracy: r0.samples > 0 ? r0.correct / r0.samples : 0,
          samples,
          imagesPerSec: (samples * 1000) / ms,
          ms,
          workers: last.map(workerStat),
          transfers: last.flatMap((l) => l.transfers ?? []),
          ...(last.some((l) => l.spans) ? { spans: last.map((l) => l.spans ?? []) } : {}),
          ...(r0.fp16 ? { fp16: r0.fp16 } : {}),
        };
        if (r0.fp16?.skipped) skipped++; // DeepSpeed steps the lr schedule only on steps taken
        if (checksAfter(step))
          yield pipelined
            ? checked(
                epoch,
                step,
                last.map((l) => l.checksum ?? ''),
              )
            : await this.check(epoch, step);
        if (globalStep >= maxSteps) this.stopRequested = true;
        if (every > 0 && globalStep % every === 0 && next < steps) yield* await save(epoch, next, steps);
      }
      const seconds = (performance.now() - t0) / 1000;
      // Stopped mid-epoch (SIGINT, stop(), the step limit) or at the epoch's end: save where it is.
      if (next >= steps) yield* this.ledger.proof();
      yield* await save(next < steps ? epoch : epoch + 1, next < steps ? next : 0, steps);
      const ev = await this.interrupted.race(() => this.all(`evaluate (epoch ${epoch})`, (h) => h.api.evaluate()));
      if (!ev) break; // interrupted: nothing evaluated (the steps done are saved)
      const t = sumEvals(ev);
      const mem = await this.all('memory', (h) => h.api.memory());
      yield {
        type: 'epoch',
        epoch,
        trainLoss: samples0 ? lossSum / samples0 : NaN,
        trainAccuracy: samples0 ? correct / samples0 : 0,
        testLoss: t.samples ? t.lossSum / t.samples : NaN,
        testAccuracy: t.samples ? t.correct / t.samples : 0,
        testSamples: t.samples,
        imagesPerSec: samplesAll / seconds,
        seconds,
        workers: mem.map((memory, rank) => ({ rank, memory, ms: 0, commMs: 0, commBytes: 0 })),
      };
      if (!this.stopRequested && c.checkEvery > 0) yield await this.check(epoch, steps - 1);
    }
    const tail = await this.all('trace tail', (h) => h.api.traceTail());
    yield { type: 'done', stopped: this.stopRequested, ...(tail.some((s) => s.length > 0) ? { spans: tail } : {}) };
  }

  /** Every rank's parameters, for a checkpoint or a parity comparison. */
  readParams(): Promise<Float32Array[]> {
    return this.all('readParams', (h) => h.api.readParams());
  }

  /** The whole run's state at `position` (ZeRO's optimizer shards gathered from every rank). */
  async snapshot(position: TrainPosition): Promise<Snapshot> {
    const [[params], states] = [await this.readParams(), await this.all('optimizer', (h) => h.api.readOptimizer())];
    if (!params) throw new Error('rank 0 returned no parameters');
    const fp16 = this.config.fp16 ? (await this.all('fp16 state', (h) => h.api.readFp16()))[0] : undefined;
    return this.ledger.stamp(snapshotOf(this.config, position, params, gatherOptimizer(states, params.length), fp16));
  }

  /** A few images of rank 0's current batch with their labels and predictions. */
  async sample(n: number): Promise<BatchSample | null> {
    const h = this.group.workers[0];
    return h ? h.api.sample(n) : null;
  }

  private async check(epoch: number, step: number): Promise<TrainEvent> {
    return checked(epoch, step, await this.all('checksum', (h) => h.api.checksum()));
  }

  /** Terminates every worker (after disposing them when they still answer). */
  close(): Promise<void> {
    return this.group.close();
  }
}

/** The replica check's event for every rank's parameter checksums after `step`; throws where they differ. */
function checked(epoch: number, step: number, sums: readonly string[]): TrainEvent {
  if (sums.some((s) => s === '')) throw new Error(`step ${step}: a rank took no parameter checksum`);
  if (!sums.every((s) => s === sums[0])) throw new ReplicaMismatchError(step, sums);
  return { type: 'check', epoch, step, identical: true, checksums: sums };
}
