// The sample ledger at run time (the arithmetic is src/data/ledger.ts). A rank resuming an epoch
// from a checkpoint's ledger on another number of ranks gets the shards the ledger deals, behind
// as many empty steps as the epoch ran before its segment (so steps keep their numbers in the
// epoch); the coordinator keeps the segments of the running epoch, writes the ledger into every
// mid-epoch checkpoint and, at the end of an epoch that was resumed mid-way, the proof that every
// sample was used once.
import type { TrainConfig } from '../config.ts';
import { epochProof, ledgerAt, resumePlan, type LedgerSegment, type SampleLedger } from '../data/ledger.ts';
import type { EpochPlan } from '../data/plan.ts';
import type { ParallelMode, PlanRequest } from '../parallel/mode.ts';
import type { Snapshot, TrainPosition } from '../checkpoint/checkpoint.ts';
import type { TrainEvent } from './events.ts';
import { checkResumedEpoch } from './snapshot.ts';

/**
 * Where a rank's epoch comes from a checkpoint's ledger (the epoch it stopped in, resumed on
 * another number of ranks than its last segment's, or after such a resume): each rank's shard and
 * the steps before them; null where DistributedSampler's own shards continue it.
 */
function ledgerShards(
  ledger: SampleLedger | undefined,
  epoch: number,
  world: number,
  datasetSize: number,
): { shardOf: (rank: number) => Int32Array; priorSteps: number } | null {
  if (!ledger || ledger.epoch !== epoch || !redistributes(ledger, world)) return null;
  if (ledger.datasetSize !== datasetSize)
    throw new Error(
      `the checkpoint's sample ledger counts ${ledger.datasetSize} training records, this run's data has ${datasetSize}`,
    );
  const plan = resumePlan(ledger, world);
  return { shardOf: (r) => plan.shards[r] ?? new Int32Array(0), priorSteps: plan.priorSteps };
}

/** Whether resuming `ledger` on `world` ranks deals shards other than DistributedSampler's. */
function redistributes(ledger: SampleLedger, world: number): boolean {
  return ledger.segments.length > 1 || ledger.segments[0]?.world !== world;
}

/**
 * A rank's plan of `req.epoch`: the mode's, over the shards the checkpoint's ledger deals where it
 * redistributes the epoch, behind as many empty steps as the epoch ran before (they keep their
 * numbers in the epoch; the coordinator starts after them).
 */
export async function planEpochFrom(
  mode: ParallelMode,
  req: PlanRequest,
  ledger: SampleLedger | undefined,
): Promise<EpochPlan> {
  const from = ledgerShards(ledger, req.epoch, req.world, req.source.trainSize);
  if (!from) return mode.planEpoch(req);
  const plan = await mode.planEpoch({ ...req, shardOf: from.shardOf });
  return { ...plan, steps: [...Array.from({ length: from.priorSteps }, () => []), ...plan.steps] };
}

/** The coordinator's view of the running epoch's segments. */
export class EpochLedger {
  private before: readonly LedgerSegment[] = [];
  private segmentStart = 0;
  private datasetSize = 0;
  private epoch = -1;
  /** The ledger this epoch resumed from (null: it started at step 0, or from a checkpoint without one). */
  private resumedFrom: SampleLedger | null = null;

  private readonly resumed: SampleLedger | undefined;

  constructor(
    private readonly config: TrainConfig,
    /** Where the run starts (a resumed checkpoint's position, with its ledger when it stopped mid-epoch). */
    private readonly from: TrainPosition,
  ) {
    this.resumed = from.ledger;
  }

  /**
   * An epoch of `steps` steps begins at `fromStep` (0, or where a checkpoint stopped). Resumed
   * mid-epoch on DistributedSampler's shards, the epoch must be as long as the checkpoint's; where the
   * ledger deals the rest to other ranks, its length is theirs.
   */
  begin(epoch: number, fromStep: number, steps: number, datasetSize: number): void {
    const redistributed = this.resumed?.epoch === epoch && redistributes(this.resumed, this.config.workers);
    if (!redistributed) checkResumedEpoch(this.from, fromStep, steps);
    this.epoch = epoch;
    this.datasetSize = datasetSize;
    const l = this.resumed?.epoch === epoch && fromStep > 0 ? this.resumed : undefined;
    const last = l?.segments.at(-1);
    const continues = !l || last?.world === this.config.workers;
    this.before = l ? (continues ? l.segments.slice(0, -1) : l.segments) : [];
    this.segmentStart = l && continues ? fromStep - (last?.steps ?? 0) : fromStep;
    this.resumedFrom = l ?? null;
    // A checkpoint from before ledgers, resumed mid-epoch on its own ranks: its segment began at 0.
    if (!l && fromStep > 0) this.segmentStart = 0;
  }

  /** `s` with the ledger of its position when it stops inside the running epoch. */
  stamp(s: Snapshot): Snapshot {
    const ledger = s.position.epoch === this.epoch ? this.at(s.position.step) : undefined;
    return ledger ? { ...s, position: { ...s.position, ledger } } : s;
  }

  /** The ledger of a checkpoint written before step `step` of the running epoch (none at its start). */
  private at(step: number): SampleLedger | undefined {
    if (step === 0 || this.datasetSize === 0) return undefined;
    const c = this.config;
    return ledgerAt(
      {
        epoch: this.epoch,
        datasetSize: this.datasetSize,
        sampler: { seed: c.seed, shuffle: c.shuffle, dropLast: c.dropLast },
      },
      this.before,
      { world: c.workers, steps: step - this.segmentStart },
      c.batchSize * c.gradAccum,
    );
  }

  /** At the end of an epoch resumed from a ledger: the event with every sample's count, and the sentence. */
  proof(): TrainEvent[] {
    const l = this.resumedFrom;
    return l ? [{ type: 'ledger', ...epochProof(l, this.before, this.config.workers) }] : [];
  }
}
