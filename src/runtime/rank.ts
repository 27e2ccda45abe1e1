// One rank's worker: its own device, its trainer, its process groups and its data; driven step by
// step by the coordinator through RankApi. Environment specifics (where WebGPU and the dataset
// store come from) are injected, so the same code runs in a browser worker and a Node worker thread.
import { SharedChunkReads } from '../data/chunk-reads.ts';
import { openDataset } from '../data/dataset.ts';
import type { DatasetStore } from '../data/store.ts';
import { acquireDevice, type Gpu } from '../gpu/device.ts';
import { PendingGpuWork } from '../gpu/pending.ts';
import { initSimpleCnn } from '../nn/init.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { Trainer } from '../train/trainer.ts';
import type { TransferEvent } from '../comm/link.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import { stepSchedule } from '../schedule/index.ts';
import { carryFailuresAcrossComlink, taggingFailures } from './failure-tag.ts';
import { planEpochFrom } from './epoch-ledger.ts';
import type { ModeContext } from '../parallel/mode.ts';
import { readRankOptimizer, redrawAugmentation, restoreRank } from './rank-state.ts';
import { createRankGroups } from './rank-groups.ts';
import type { DataSpec, RankApi, RankInit } from './protocol.ts';
import { DatasetSource, TensorSource, type BatchSource } from '../data/source.ts';
import { evaluateShard, sampleBatch, type Evaluator } from './evaluate.ts';
import { Tracer } from '../trace/tracer.ts';
import { paramsHash, runRankStep, type ActiveRank } from './rank-step.ts';
import { checkSharable, type SharedDevice } from './shared-device.ts';
import { withTuning } from '../train/trainer-options.ts';

export interface RankEnv {
  /** The WebGPU entry point of this worker (navigator.gpu, or Dawn's GPU object). */
  gpu(): Promise<GPU>;
  /** The dataset store for a 'idb' or 'file' DataSpec. */
  openStore(spec: Exclude<DataSpec, { kind: 'tensors' }>): Promise<DatasetStore>;
  /** Ends this worker abruptly (fault injection: a worker that exits). */
  exit(code: number): void;
  /** Kernel tuning JSON for a run that gives none (RankInit.tuning): Node's WEBDDP_TUNING. */
  readonly tuning?: string | undefined;
  /** Ranks of this worker sharing one device (--colocate): each rank's view of it, the GPU all-reduce. */
  readonly shared?: SharedDevice;
}

/** The chunk reads the ranks sharing one device share (each epoch they load their shards from the same chunks). */
const sharedReads = new WeakMap<SharedDevice, SharedChunkReads>();
function chunkReadsOf(device: SharedDevice): SharedChunkReads {
  let reads = sharedReads.get(device);
  if (!reads) sharedReads.set(device, (reads = new SharedChunkReads()));
  return reads;
}

/** How long dispose waits for a call still running on this rank (e.g. a step whose peer died). */
const DISPOSE_WAIT_MS = 2000;

/** What evaluates a batch on this rank: the mode's runner where it holds the parameters (ZeRO-3), else the trainer. */
function evaluator(st: ActiveRank): Evaluator {
  const runner = st.runner;
  return runner.evaluate
    ? { model: st.trainer.model, evaluate: (b) => runner.evaluate?.(b) ?? st.trainer.evaluate(b) }
    : st.trainer;
}

export function createRankApi(env: RankEnv): RankApi {
  carryFailuresAcrossComlink();
  let s: ActiveRank | null = null;
  let myRank = -1;
  /** The device of an init still running: dispose() during it waits for init, then its device. */
  let initGpu: Gpu | null = null;
  // The GPU work of a call still in flight when dispose comes (the coordinator gives up on a run as
  // soon as one rank fails): dispose lets it settle before destroying the buffers under it.
  const inFlight = new PendingGpuWork();
  const need = (): ActiveRank => {
    if (!s) throw new Error('this rank is not initialised: call init() first');
    s.gpu.assertAlive();
    return s;
  };

  async function makeSource(data: DataSpec | null, cfg: RankInit['config']): Promise<BatchSource | null> {
    if (!data) return null;
    if (data.kind === 'tensors') return new TensorSource(data.x, data.y, data.testX, data.testY);
    const dataset = await openDataset(await env.openStore(data), data.dataset);
    return new DatasetSource(dataset, cfg.trainLimit, cfg.testLimit, env.shared ? chunkReadsOf(env.shared) : undefined);
  }

  return taggingFailures(() => myRank, {
    async init(init) {
      const { rank, world, config } = init;
      myRank = rank;
      const transfers: TransferEvent[] = [];
      const counters = { sent: 0, commMs: 0 };
      const tracer = new Tracer(init.trace ?? false);
      const { pg, pairs: pairMap } = createRankGroups(init, tracer, counters, transfers);
      if (env.shared) checkSharable(config);
      const label = `rank ${rank}`;
      const gpu = await (env.shared ? env.shared.view(label) : acquireDevice(await env.gpu(), { label }));
      gpu.tracer = tracer;
      initGpu = gpu;
      try {
        const spec = simpleCnnSpec(config.width);
        const mode = PARALLEL_MODES[config.mode];
        const base = mode.trainerOptions(spec, config, rank, world);
        const trainer = await Trainer.create(gpu, withTuning(base, init.tuning ?? env.tuning, gpu.adapter));
        const initialParams = init.initialParams ?? initSimpleCnn(spec, config.seed);
        if (!mode.partitioned.parameters) trainer.setParams(initialParams);
        const source = await makeSource(init.data, config);
        const ctx: ModeContext = {
          rank,
          world,
          config,
          trainer,
          pg,
          pairs: pairMap,
          source,
          initialParams,
          tracer,
          ...(env.shared ? { colocated: env.shared } : {}),
          async comm(op, name = 'collective') {
            const t0 = performance.now();
            const end = tracer.begin(name, 'comm');
            try {
              return await op();
            } finally {
              end();
              counters.commMs += performance.now() - t0;
            }
          },
        };
        const runner = await mode.createRunner(ctx);
        const parts = { init, gpu, trainer, pg, pairs: pairMap, source, runner, transfers, counters };
        s = { ...parts, plan: null, done: init.restore?.globalStep ?? 0, skipped: 0, lrAt: null };
        await runner.syncInitial();
        if (init.restore) restoreRank(s, init.restore);
        const transport = pg.link.transport;
        return { rank, transport, adapter: gpu.adapter, params: spec.total, memory: gpu.memory.snapshot() };
      } catch (e) {
        // pipelines still compiling must settle before the worker ends (gpu/pending.ts)
        s = null;
        await gpu.dispose();
        await env.shared?.release();
        throw e;
      } finally {
        initGpu = null;
      }
    },

    async beginEpoch(epoch, fromStep = 0) {
      const st = need();
      const { config, rank, world } = st.init;
      const mode = PARALLEL_MODES[config.mode];
      st.plan = st.source
        ? await planEpochFrom(mode, { config, rank, world, epoch, source: st.source }, st.init.restore?.ledger)
        : { epoch, steps: [], samples: 0, indices: new Int32Array(0) };
      // Resuming mid-epoch: the augmentation stream draws per image in batch order, so the batches
      // of the steps already trained are drawn (and dropped) again.
      if (config.augment && st.source) redrawAugmentation(st.source, st.plan, fromStep);
      // The schedule spans the whole run: every epoch has as many steps as this one.
      if (st.source) st.lrAt ??= stepSchedule(config.schedule, config.lr, config.epochs * st.plan.steps.length);
      const { samples, indices } = st.plan;
      return { epoch, steps: st.plan.steps.length, samples, indices, datasetSize: st.source?.trainSize ?? 0 };
    },

    step: (epoch, step, opts = {}) =>
      inFlight.track(
        (async () => runRankStep(need(), { exit: (c) => env.exit(c), shared: !!env.shared }, epoch, step, opts))(),
      ),

    evaluate: () =>
      inFlight.track(
        (async () => {
          const st = need();
          await st.runner.syncParams();
          // on the trace: its forwards carry the number of the step they follow
          return st.gpu.tracer.span('evaluate', 'step', () => evaluateShard(evaluator(st), st.source, st.init));
        })(),
      ),

    async traceTail() {
      const tracer = need().gpu.tracer;
      if (!tracer.on) return [];
      await tracer.landed();
      return tracer.take();
    },

    async checksum() {
      const st = need();
      await st.runner.syncParams();
      return paramsHash(await (st.runner.readParams?.() ?? st.trainer.readParams()));
    },

    readParams: () => {
      const st = need();
      return st.runner.readParams?.() ?? st.trainer.readParams();
    },

    readOptimizer: () => readRankOptimizer(need()),

    async readFp16() {
      const st = need();
      const scaler = st.runner.lossScaler?.();
      return scaler ? { scaler: scaler.state(), skippedSteps: st.skipped } : null;
    },

    sample: (n) => {
      const st = need();
      return sampleBatch(evaluator(st), st.trainer, st.source, n);
    },
    memory: async () => need().gpu.memory.snapshot(),

    async collectives() {
      return s ? [s.pg.recorder.state(), ...[...s.pairs.values()].map((p) => p.recorder.state())] : [];
    },

    async abort(reason) {
      if (!s) return;
      s.pg.abort(new Error(reason));
      for (const p of s.pairs.values()) p.abort(new Error(reason));
    },

    async dispose() {
      if (!s) {
        if (initGpu) await initGpu.dispose();
        return;
      }
      await inFlight.drain(DISPOSE_WAIT_MS);
      if (!s) return;
      s.runner.dispose();
      s.pg.close();
      for (const p of s.pairs.values()) p.close();
      s.trainer.destroy();
      const gpu = s.gpu;
      s = null;
      // the worker may end next: its mapAsync and pipeline promises must settle first (gpu/pending.ts)
      await gpu.dispose();
      await env.shared?.release();
    },
  });
}
