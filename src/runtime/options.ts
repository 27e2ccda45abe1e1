// What starts a Coordinator (its workers, data, initial or resumed state) and what its run() saves.
import type { Snapshot } from '../checkpoint/checkpoint.ts';
import type { Transport } from '../comm/link.ts';
import type { TrainConfig } from '../config.ts';
import type { DataSpec, Fault } from './protocol.ts';
import type { SpawnWorker } from './worker-group.ts';

export interface CoordinatorOptions {
  readonly config: TrainConfig;
  /** Each rank's data (DataParallel replicas get none). */
  readonly data: DataSpec;
  readonly spawn: SpawnWorker;
  readonly initialParams?: Float32Array;
  readonly recordTransfers?: boolean;
  /** Record every rank's step timeline (step events carry the spans). */
  readonly trace?: boolean;
  /** Compare every collective's fingerprint across ranks before it runs (--debug-collectives). */
  readonly debugCollectives?: boolean;
  /** Kernel tuning as JSON over each rank's adapter's own (src/gpu/tuning.ts parseTuning). */
  readonly tuning?: string;
  /** The ranks share one device (spawn-node.ts colocatedSpawner): DDP's collectives are GPU submits. */
  readonly colocated?: boolean;
  /**
   * How the ranks' links move bytes: MessagePort messages (the default: faster than the shared
   * rings in Node on the H200, docs/placements.md) or shared-memory rings (where SharedArrayBuffer
   * and Atomics.waitAsync exist: Node, a cross-origin-isolated page; elsewhere messages).
   */
  readonly transport?: Transport;
  /** Stage a failure on one rank (tests, demonstrations). */
  readonly fault?: Fault & { readonly rank: number };
  /** Continue a checkpoint: its parameters and optimizer state go to the ranks, run() starts at its position. */
  readonly resume?: Snapshot;
}

/** What run() saves and when it stops early. */
export interface RunOptions {
  /**
   * Saves the run's state (returns where it went, for the log): every `every` optimizer steps (0:
   * never), at each epoch's end, and when the run is stopped or reaches maxSteps.
   */
  readonly checkpoint?: { readonly every: number; save(s: Snapshot): Promise<string> };
  /** Stop once this many optimizer steps are done in all (counted from the start of training). */
  readonly maxSteps?: number;
}
