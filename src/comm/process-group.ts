// A process group: one rank's collectives bound to its link, in the shape of torch.distributed
// (all_reduce, reduce_scatter_tensor, all_gather_into_tensor, broadcast, barrier). This is what a
// worker exposes to the trainer; the coordinator only wires the ring ports (createRingPorts), and
// the ports say which transport the link takes.
import { allGather, reduceScatter, ringAllReduce } from './collectives.ts';
import type { AllReduceOptions, CollectiveOptions, ReducedChunk } from './collectives.ts';
import { broadcast } from './broadcast.ts';
import type { Link, RingPorts } from './link.ts';
import { createPortLink } from './port-link.ts';
import type { PortLinkOptions } from './port-link.ts';
import { createSharedLink } from './shared-link.ts';
import { allReduceScalars, barrier } from './scalars.ts';

/** One rank's view of the group. Every rank must call the same collectives in the same order. */
export class ProcessGroup {
  readonly rank: number;
  readonly world: number;

  constructor(readonly link: Link) {
    this.rank = link.rank;
    this.world = link.world;
  }

  /** In-place SUM (or DDP-style average) all-reduce. */
  allReduce(data: Float32Array, opts?: AllReduceOptions): Promise<Float32Array> {
    return ringAllReduce(data, this.rank, this.world, this.link, opts);
  }

  /** In-place reduce-scatter: this rank's reduced chunk (chunk `rank`). */
  reduceScatter(data: Float32Array, opts?: AllReduceOptions): Promise<ReducedChunk> {
    return reduceScatter(data, this.rank, this.world, this.link, opts);
  }

  /** In-place all-gather of every rank's chunk `rank`. */
  allGather(data: Float32Array, opts?: CollectiveOptions): Promise<Float32Array> {
    return allGather(data, this.rank, this.world, this.link, opts);
  }

  /** In-place broadcast from `root`. */
  broadcast(data: Float32Array, root: number, opts?: CollectiveOptions): Promise<Float32Array> {
    return broadcast(data, root, this.rank, this.world, this.link, opts);
  }

  /** Float64 sum of a few scalars over all ranks, identical bits everywhere. */
  allReduceScalars(values: ArrayLike<number>): Promise<Float64Array> {
    return allReduceScalars(values, this.rank, this.world, this.link);
  }

  /** Waits until every rank has arrived. */
  barrier(): Promise<void> {
    return barrier(this.rank, this.world, this.link);
  }

  /** Aborts the group: every rank's pending and later collectives reject, naming this rank and the reason. */
  abort(reason: unknown): void {
    this.link.abort(reason);
  }

  /** Closes the link's ports. */
  close(): void {
    this.link.close();
  }
}

/** A rank's link on the transport its ring was made for: shared rings when it has them, else MessagePorts. */
export function createLink(opts: PortLinkOptions, ports: RingPorts): Link {
  return ports.shared ? createSharedLink(opts, ports) : createPortLink(opts, ports);
}

/** Builds a rank's process group from its ring ports. */
export function createProcessGroup(opts: PortLinkOptions, ports: RingPorts): ProcessGroup {
  return new ProcessGroup(createLink(opts, ports));
}
