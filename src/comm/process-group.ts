// A process group: one rank's collectives bound to its link, in the shape of torch.distributed
// (all_reduce, reduce_scatter_tensor, all_gather_into_tensor, broadcast, barrier). This is what a
// worker exposes to the trainer; the coordinator only wires the ring ports (createRingPorts), and
// the ports say which transport the link takes. Every collective goes through the group's flight
// recorder (flight-recorder.ts); with `debug` (--debug-collectives) the ranks first all-gather the
// collective's fingerprint and stop at the first disagreement, naming both sides.
import { allGather, reduceScatter, ringAllReduce } from './collectives.ts';
import type { AllReduceOptions, CollectiveOptions, ReducedChunk } from './collectives.ts';
import { broadcast } from './broadcast.ts';
import type { CollectiveOp } from './errors.ts';
import {
  CollectiveDesyncError,
  decodeFingerprint,
  encodeFingerprint,
  fingerprintDiff,
  FINGERPRINT_WORDS,
  FlightRecorder,
  type CollectiveDtype,
  type CollectiveFingerprint,
  type CollectiveRecord,
} from './flight-recorder.ts';
import { nowMs, type Link, type RingPorts } from './link.ts';
import { createPortLink } from './port-link.ts';
import type { PortLinkOptions } from './port-link.ts';
import { createSharedLink } from './shared-link.ts';
import { allReduceScalars, barrier } from './scalars.ts';

/** What a collective's record says beyond its op and size: the gradient bucket it carries. */
export interface RecordTag {
  readonly bucket?: number;
}

export interface GroupOptions {
  /** Compare every collective's fingerprint across ranks before it runs (--debug-collectives). */
  readonly debug?: boolean;
  /** The recorder's name for this group ('ring', or 'pair with rank P'). */
  readonly name?: string;
  /** Records the flight recorder keeps. */
  readonly recorderCapacity?: number;
  /** Called with every collective's record once it has ended (the rank's timeline). */
  readonly onRecord?: (r: CollectiveRecord) => void;
}

const dtypeOf = (o: AllReduceOptions | undefined): CollectiveDtype => (o?.halves ? 'f16' : o?.bf16 ? 'bf16' : 'f32');

/** One rank's view of the group. Every rank must call the same collectives in the same order. */
export class ProcessGroup {
  readonly rank: number;
  readonly world: number;
  readonly recorder: FlightRecorder;
  readonly debug: boolean;
  /** Injected fault (fault.ts 'skip-bucket'): all-reduces of a bucket this rank leaves out, once each. */
  private readonly skip = new Set<number>();
  private readonly onRecord: ((r: CollectiveRecord) => void) | undefined;

  constructor(
    readonly link: Link,
    o: GroupOptions = {},
  ) {
    this.rank = link.rank;
    this.world = link.world;
    this.debug = o.debug ?? false;
    this.recorder = new FlightRecorder(link.rank, o.name, o.recorderCapacity);
    this.onRecord = o.onRecord;
  }

  /** In-place SUM (or DDP-style average) all-reduce. */
  allReduce(data: Float32Array, opts?: AllReduceOptions & RecordTag): Promise<Float32Array> {
    const bucket = opts?.bucket ?? null;
    if (bucket !== null && this.skip.delete(bucket)) return Promise.resolve(data);
    return this.recorded('allReduce', data.length, dtypeOf(opts), bucket, () =>
      ringAllReduce(data, this.rank, this.world, this.link, opts),
    );
  }

  /** In-place reduce-scatter: this rank's reduced chunk (chunk `rank`). */
  reduceScatter(data: Float32Array, opts?: AllReduceOptions & RecordTag): Promise<ReducedChunk> {
    return this.recorded('reduceScatter', data.length, dtypeOf(opts), opts?.bucket ?? null, () =>
      reduceScatter(data, this.rank, this.world, this.link, opts),
    );
  }

  /** In-place all-gather of every rank's chunk `rank`. */
  allGather(data: Float32Array, opts?: CollectiveOptions & RecordTag): Promise<Float32Array> {
    return this.recorded('allGather', data.length, 'f32', opts?.bucket ?? null, () =>
      allGather(data, this.rank, this.world, this.link, opts),
    );
  }

  /** In-place broadcast from `root`. */
  broadcast(data: Float32Array, root: number, opts?: CollectiveOptions & RecordTag): Promise<Float32Array> {
    return this.recorded('broadcast', data.length, 'f32', opts?.bucket ?? null, () =>
      broadcast(data, root, this.rank, this.world, this.link, opts),
    );
  }

  /** Float64 sum of a few scalars over all ranks, identical bits everywhere. */
  allReduceScalars(values: ArrayLike<number>): Promise<Float64Array> {
    return this.recorded('allReduceScalars', values.length, 'f64', null, () =>
      allReduceScalars(values, this.rank, this.world, this.link),
    );
  }

  /** Waits until every rank has arrived. */
  barrier(): Promise<void> {
    return this.recorded('barrier', 1, 'f32', null, () => barrier(this.rank, this.world, this.link));
  }

  /** Fault injection: this rank's next all-reduce of `bucket` returns at once, unreduced (a desync). */
  skipBucket(bucket: number): void {
    this.skip.add(bucket);
  }

  /** Aborts the group: every rank's pending and later collectives reject, naming this rank and the reason. */
  abort(reason: unknown): void {
    this.link.abort(reason);
  }

  /** Closes the link's ports. */
  close(): void {
    this.link.close();
  }

  private async recorded<T>(
    op: CollectiveOp,
    count: number,
    dtype: CollectiveDtype,
    bucket: number | null,
    body: () => Promise<T>,
  ): Promise<T> {
    const fp = this.recorder.fingerprint(op, count, dtype, bucket);
    if (this.debug && this.world > 1) await this.compare(fp);
    const bytes = dtype === 'f64' ? count * 8 : count * 4;
    const rec = this.recorder.enter(fp, bytes, nowMs());
    try {
      const r = await body();
      this.recorder.finish(rec, nowMs());
      return r;
    } catch (e) {
      this.recorder.finish(rec, nowMs(), e);
      throw e;
    } finally {
      this.onRecord?.(rec);
    }
  }

  /** Every rank's fingerprint of the collective it is about to run; throws at the first that differs. */
  private async compare(fp: CollectiveFingerprint): Promise<void> {
    const F = FINGERPRINT_WORDS;
    const all = new Float32Array(F * this.world);
    const seq = this.recorder.entered;
    encodeFingerprint(fp, seq, all.subarray(this.rank * F, (this.rank + 1) * F));
    await allGather(all, this.rank, this.world, this.link);
    const mine = { fp, seq };
    for (let r = 0; r < this.world; r++) {
      if (r === this.rank) continue;
      const theirs = decodeFingerprint(all.subarray(r * F, (r + 1) * F));
      const fields = fingerprintDiff(fp, theirs.fp) ?? (theirs.seq !== seq ? ['sequence number'] : null);
      if (fields) throw new CollectiveDesyncError(this.rank, mine, r, theirs, fields);
    }
  }
}

/** A rank's link on the transport its ring was made for: shared rings when it has them, else MessagePorts. */
export function createLink(opts: PortLinkOptions, ports: RingPorts): Link {
  return ports.shared ? createSharedLink(opts, ports) : createPortLink(opts, ports);
}

/** Builds a rank's process group from its ring ports. */
export function createProcessGroup(opts: PortLinkOptions, ports: RingPorts, o: GroupOptions = {}): ProcessGroup {
  return new ProcessGroup(createLink(opts, ports), o);
}
