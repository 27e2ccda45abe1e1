// One training step of a rank (RankApi.step): its micro-batches from the epoch's plan, the
// schedule's lr and momentum, the mode's runner, and the step's log (loss, time, communication,
// memory, spans, the replica check's checksum). Pipelined runners (one worker, ranks sharing a
// device) are asked for a step before the previous one is recorded: what the step's recording
// reads from the rank and what it counts are taken at the runner's hooks, when its turn comes and
// once its work is submitted.
import type { TransferEvent } from '../comm/link.ts';
import type { ProcessGroup } from '../comm/process-group.ts';
import { sha256Hex } from '../data/hash.ts';
import type { EpochPlan } from '../data/plan.ts';
import type { BatchSource } from '../data/source.ts';
import type { Gpu } from '../gpu/device.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import type { MicroBatch, ModeRunner, StepHooks, StepStats } from '../parallel/mode.ts';
import type { StepSchedule } from '../schedule/index.ts';
import type { Trainer } from '../train/trainer.ts';
import { stageFault } from './fault.ts';
import type { RankInit, RankStepLog, StepOptions } from './protocol.ts';

/** An initialised rank. */
export interface ActiveRank {
  init: RankInit;
  gpu: Gpu;
  trainer: Trainer;
  pg: ProcessGroup;
  pairs: Map<number, ProcessGroup>;
  source: BatchSource | null;
  runner: ModeRunner;
  plan: EpochPlan | null;
  transfers: TransferEvent[];
  /** This step's bytes sent and milliseconds waited in collectives. */
  counters: { sent: number; commMs: number };
  /** Steps run so far (over all epochs). */
  done: number;
  /** fp16 steps skipped on overflow so far: DeepSpeed steps the lr schedule only on steps taken. */
  skipped: number;
  /** The lr (and OneCycleLR's momentum / beta1) of each optimizer step, known once the first epoch is planned. */
  lrAt: StepSchedule | null;
}

/** The parameters' SHA-256 (the replica check). */
export const paramsHash = (p: Float32Array<ArrayBuffer>): Promise<string> =>
  sha256Hex(new Uint8Array(p.buffer, p.byteOffset, p.byteLength));

/** Where the step runs: `exit` ends the worker (a fault), `shared` says ranks share its device. */
export interface StepEnv {
  exit(code: number): void;
  readonly shared: boolean;
}

/**
 * The runner's step with `hooks` called at their points in time: by the runner where its steps
 * pipeline (onNextStep), else around the step (nothing of the next step runs before this one ends).
 */
async function stepWithHooks(
  runner: ModeRunner,
  micro: readonly MicroBatch[],
  lr: number,
  hooks: Required<StepHooks>,
): Promise<StepStats> {
  if (runner.onNextStep) {
    runner.onNextStep(hooks);
    return runner.step(micro, lr);
  }
  hooks.started();
  try {
    return await runner.step(micro, lr);
  } finally {
    hooks.submitted();
  }
}

export async function runRankStep(
  st: ActiveRank,
  env: StepEnv,
  epoch: number,
  step: number,
  opts: StepOptions,
): Promise<RankStepLog> {
  // DataParallel replicas have no data: device 0 sends them their chunks.
  const micro = st.source ? st.plan?.steps[step] : [];
  if (!micro || (st.source && st.plan?.epoch !== epoch))
    throw new Error(`rank ${st.init.rank}: no step ${step} in epoch ${epoch} (call beginEpoch first)`);
  if (opts.checksum && !st.runner.onNextStep)
    throw new Error(`rank ${st.init.rank}: this mode's steps do not pipeline`);
  if (st.init.fault?.step === st.done)
    await stageFault(
      st.init.fault,
      st.init.rank,
      st.done,
      st.gpu,
      (c) => env.exit(c),
      () => {
        if (!PARALLEL_MODES[st.init.config.mode].usesBucketCap || env.shared)
          throw new Error(
            'the skip-bucket fault needs a mode that all-reduces gradient buckets on the ring (--mode ddp)',
          );
        st.pg.skipBucket(0);
      },
    );
  st.done++;
  const t0 = performance.now();
  const tracer = st.gpu.tracer;
  const n = st.done - 1;
  const k = n - st.skipped;
  // When its turn comes: its number on the trace and the flight recorders, its momentum, fresh
  // communication counters, and the start of its span on the trace (from its turn to its result; a
  // pipelined step is asked for while the one before still runs). Once its work is submitted (its
  // communication is over, the next step's begins): its counters, and the replica check's copy of
  // its parameters, hashed while the next steps run.
  let endSpan = (): void => {};
  const started = () => {
    st.transfers.length = 0;
    st.counters.commMs = 0;
    st.counters.sent = 0;
    for (const g of [st.pg, ...st.pairs.values()]) g.recorder.step = n;
    tracer.step = n;
    const momentum = st.lrAt?.momentum?.(k);
    if (momentum !== undefined) (st.runner.optimizer ?? st.trainer.optimizer)?.setMomentum(momentum);
    endSpan = tracer.begin(`step ${n}`, 'step', { step: n });
  };
  let counted = { commMs: 0, sent: 0, transfers: [] as TransferEvent[] };
  let params: Promise<Float32Array<ArrayBuffer>> | undefined;
  const submitted = () => {
    counted = { commMs: st.counters.commMs, sent: st.counters.sent, transfers: [...st.transfers] };
    if (!opts.checksum) return;
    params = st.trainer.readParams();
    params.catch(() => undefined); // a failed step reports its own error
  };
  const lr = st.lrAt?.lr(k) ?? st.init.config.lr;
  let r: StepStats;
  try {
    r = await stepWithHooks(st.runner, micro, lr, { started, submitted });
  } finally {
    endSpan();
  }
  const checksum = params ? await paramsHash(await params) : undefined;
  if (r.fp16?.skipped) st.skipped++;
  return {
    rank: st.init.rank,
    epoch,
    step,
    loss: r.loss,
    correct: r.correct,
    samples: r.samples,
    ms: performance.now() - t0,
    commMs: counted.commMs,
    commBytes: counted.sent,
    memory: st.gpu.memory.snapshot(),
    ...(r.fp16 ? { fp16: r.fp16 } : {}),
    ...(st.init.recordTransfers ? { transfers: counted.transfers } : {}),
    ...(tracer.on ? { spans: tracer.take() } : {}),
    ...(checksum ? { checksum } : {}),
  };
}
