// The coordinator: spawns one worker per rank (each acquires its own GPUDevice), wires the ring of
// MessageChannels (and, for DataParallel, a pair of channels between device 0 and each replica),
// then drives the ranks step by step and yields what happens. Gradients flow worker to worker; the
// coordinator only sees logs. A rank that throws, exits, loses its device or stops answering ends
// the run within a bounded time with a RankFailedError naming it; the others are aborted first, so
// nothing continues on half-reduced gradients.
import { transfer, type Remote } from 'comlink';
import type { TrainConfig } from '../config.ts';
import { RankFailedError, ReplicaMismatchError, type TrainEvent, type WorkerStat } from './events.ts';
import { createRingPorts, type RingPorts } from '../comm/link.ts';
import type { BatchSample, DataSpec, Fault, RankApi, RankInfo, RankStepLog } from './protocol.ts';
import { isDataParallel } from './rank-setup.ts';

export interface WorkerHandle {
  readonly api: Remote<RankApi>;
  /** Registers a callback for the worker dying (an uncaught error, an exit, a crash). */
  onExit(cb: (reason: string) => void): void;
  terminate(): void;
}

export type SpawnWorker = (rank: number) => WorkerHandle;

export interface CoordinatorOptions {
  readonly config: TrainConfig;
  /** Each rank's data (DataParallel replicas get none). */
  readonly data: DataSpec;
  readonly spawn: SpawnWorker;
  readonly initialParams?: Float32Array;
  readonly recordTransfers?: boolean;
  /** Stage a failure on one rank (tests, demonstrations). */
  readonly fault?: Fault & { readonly rank: number };
}

const PEER_ERRORS = /PeerFailedError|CollectiveTimeoutError|aborted/;

/**
 * The rank a collective error blames: the peer a rank timed out waiting for, the rank an abort
 * names, or DataParallel's link partner; else the rank that reported it.
 */
export function blamedRank(message: string, reporter: number): number {
  const m =
    /DataParallel link with rank (\d+)/.exec(message) ??
    /waiting for (?:data from|buffer space at) rank (\d+)/.exec(message) ??
    /because rank (\d+) failed/.exec(message);
  return m?.[1] !== undefined ? Number(m[1]) : reporter;
}

export class Coordinator {
  private readonly exits: (string | null)[];
  private stopRequested = false;
  private pauseGate: { promise: Promise<void>; release: () => void } | null = null;

  /** Calls in flight that want to hear about a worker dying. */
  private readonly exitWaiters = new Set<(rank: number, reason: string) => void>();

  private constructor(
    readonly config: TrainConfig,
    private readonly workers: readonly WorkerHandle[],
    readonly ranks: readonly RankInfo[],
  ) {
    this.exits = workers.map(() => null);
    workers.forEach((h, r) =>
      h.onExit((reason) => {
        this.exits[r] = reason;
        for (const w of this.exitWaiters) w(r, reason);
      }),
    );
  }

  /** Spawns and initialises every rank (their device, trainer and links). */
  static async start(o: CoordinatorOptions): Promise<Coordinator> {
    const W = o.config.workers;
    const workers = Array.from({ length: W }, (_, r) => o.spawn(r));
    const ring = createRingPorts(W);
    const pairs: { peer: number; ports: RingPorts }[][] = workers.map(() => []);
    if (isDataParallel(o.config)) {
      for (let r = 1; r < W; r++) {
        const [root, replica] = createRingPorts(2);
        if (root && replica) {
          pairs[0]?.push({ peer: r, ports: root });
          pairs[r]?.push({ peer: 0, ports: replica });
        }
      }
    }
    const probe = new Coordinator(o.config, workers, []);
    const ranks = await probe
      .all(
        'init',
        (h, r) => {
          const ports = [
            ring[r]?.next,
            ring[r]?.prev,
            ...(pairs[r] ?? []).flatMap((p) => [p.ports.next, p.ports.prev]),
          ].filter((p): p is MessagePort => p !== undefined);
          const data = isDataParallel(o.config) && r > 0 ? null : o.data;
          return h.api.init(
            transfer(
              {
                rank: r,
                world: W,
                config: o.config,
                data,
                ring: ring[r] ?? { next: ports[0]!, prev: ports[1]! },
                pairs: pairs[r] ?? [],
                ...(r === 0 && o.initialParams ? { initialParams: o.initialParams } : {}),
                recordTransfers: o.recordTransfers ?? false,
                ...(o.fault?.rank === r ? { fault: { step: o.fault.step, kind: o.fault.kind } } : {}),
              },
              ports,
            ),
          );
        },
        10 * 60_000,
      )
      .catch(async (e: unknown) => {
        await probe.close();
        throw e;
      });
    return new Coordinator(o.config, workers, ranks);
  }

  pause(): void {
    if (this.pauseGate) return;
    let release = () => {};
    const promise = new Promise<void>((r) => {
      release = r;
    });
    this.pauseGate = { promise, release };
  }

  resume(): void {
    this.pauseGate?.release();
    this.pauseGate = null;
  }

  /** Ends the run after the current step. */
  stop(): void {
    this.stopRequested = true;
    this.resume();
  }

  get paused(): boolean {
    return this.pauseGate !== null;
  }

  /** Trains for config.epochs epochs, yielding events; evaluates after each epoch. */
  async *run(): AsyncGenerator<TrainEvent> {
    const c = this.config;
    yield { type: 'start', config: c, ranks: this.ranks };
    let globalStep = 0;
    for (let epoch = 0; epoch < c.epochs && !this.stopRequested; epoch++) {
      const infos = await this.all(`beginEpoch(${epoch})`, (h) => h.api.beginEpoch(epoch));
      const steps = infos[0]?.steps ?? 0;
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
      for (let step = 0; step < steps; step++) {
        if (this.pauseGate) await this.pauseGate.promise;
        if (this.stopRequested) break;
        const ts = performance.now();
        const last = await this.all(`step ${step} of epoch ${epoch}`, (h) => h.api.step(epoch, step));
        const ms = performance.now() - ts;
        const r0 = last[0];
        if (!r0) break;
        const samples = isDataParallel(c) ? r0.samples : last.reduce((a, l) => a + l.samples, 0);
        lossSum += r0.loss * r0.samples;
        correct += r0.correct;
        samples0 += r0.samples;
        samplesAll += samples;
        globalStep++;
        yield {
          type: 'step',
          epoch,
          step,
          steps,
          loss: r0.loss,
          rankLosses: last.map((l) => l.loss),
          accuracy: r0.samples > 0 ? r0.correct / r0.samples : 0,
          samples,
          imagesPerSec: (samples * 1000) / ms,
          ms,
          workers: last.map(stat),
          transfers: last.flatMap((l) => l.transfers ?? []),
        };
        if (c.checkEvery > 0 && globalStep % c.checkEvery === 0) yield await this.check(epoch, step);
      }
      const seconds = (performance.now() - t0) / 1000;
      const ev = await this.all(`evaluate (epoch ${epoch})`, (h) => h.api.evaluate());
      const t = ev.reduce(
        (a, e) => ({ lossSum: a.lossSum + e.lossSum, correct: a.correct + e.correct, samples: a.samples + e.samples }),
        { lossSum: 0, correct: 0, samples: 0 },
      );
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
    yield { type: 'done', stopped: this.stopRequested };
  }

  /** Every rank's parameters, for a checkpoint or a parity comparison. */
  readParams(): Promise<Float32Array[]> {
    return this.all('readParams', (h) => h.api.readParams());
  }

  /** A few images of rank 0's current batch with their labels and predictions. */
  async sample(n: number): Promise<BatchSample | null> {
    const h = this.workers[0];
    return h ? h.api.sample(n) : null;
  }

  private async check(epoch: number, step: number): Promise<TrainEvent> {
    const sums = await this.all('checksum', (h) => h.api.checksum());
    const identical = sums.every((s) => s === sums[0]);
    if (!identical) throw new ReplicaMismatchError(step, sums);
    return { type: 'check', epoch, step, identical, checksums: sums };
  }

  /** Terminates every worker (after disposing them when they still answer). */
  async close(): Promise<void> {
    await Promise.race([
      Promise.allSettled(this.workers.map((h) => h.api.dispose())),
      new Promise((r) => setTimeout(r, 5000)),
    ]);
    for (const h of this.workers) h.terminate();
  }

  /**
   * Calls every rank and waits for all of them; the first rank that fails (throws, exits, or does
   * not answer within the timeout) fails the call, after every rank has been told to abort. The
   * timeout is longer than the collectives' own, so a rank stuck in a collective reports (and
   * names) the peer it waited for first.
   */
  private all<T>(
    what: string,
    call: (h: WorkerHandle, rank: number) => Promise<T>,
    timeoutMs = this.config.stepTimeoutMs + 10_000,
  ): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      const results: (T | undefined)[] = this.workers.map(() => undefined);
      const pending = new Set(this.workers.map((_, r) => r));
      let settled = false;
      let peerTimer: ReturnType<typeof setTimeout> | undefined;
      const onExit = (rank: number, reason: string) => fail(rank, reason);
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(peerTimer);
        this.exitWaiters.delete(onExit);
      };
      const fail = (rank: number, cause: string) => {
        if (settled) return;
        settled = true;
        finish();
        for (const h of this.workers) void h.api.abort(`rank ${rank} failed: ${cause}`).catch(() => undefined);
        reject(new RankFailedError(rank, what, cause));
      };
      const timer = setTimeout(
        () => fail([...pending][0] ?? 0, `no answer within ${Math.round(timeoutMs / 1000)} s`),
        timeoutMs,
      );
      this.exitWaiters.add(onExit);
      this.workers.forEach((h, r) => {
        const gone = this.exits[r];
        if (gone) {
          fail(r, gone);
          return;
        }
        call(h, r).then(
          (v) => {
            results[r] = v;
            pending.delete(r);
            if (pending.size === 0 && !settled) {
              settled = true;
              finish();
              resolve(results as T[]);
            }
          },
          (e: unknown) => {
            const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
            // A peer's "rank k failed" is a symptom; give the root cause a moment to arrive first.
            if (PEER_ERRORS.test(msg)) peerTimer ??= setTimeout(() => fail(blamedRank(msg, r), msg), 1000);
            else fail(r, msg);
          },
        );
      });
    });
  }
}

function stat(l: RankStepLog): WorkerStat {
  return { rank: l.rank, memory: l.memory, ms: l.ms, commMs: l.commMs, commBytes: l.commBytes };
}
