// The device side of a replica whose optimizer holds only its partition of the flat arena (ZeRO
// stages 1 and 2): the backward delivers the step's gradients, pre-divided by the world size, to
// the host (`host`, by arena offset), and the update steps the partition from its reduced
// gradients and reads the partition's new values back for the mode to all-gather.
// Stage 1 keeps a full gradient arena: after the last micro-batch's backward it is pre-divided,
// read back whole and cleared. Stage 2 does not: backward writes into one bounded bucket (a layer,
// or a row piece of a large Linear layer), which is pre-divided, read back, added into `host` and
// cleared after each layer or piece (grad-bucket.ts, piece-cache.ts).
import { bufferFrom } from '../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import { GradientBucket } from './grad-bucket.ts';
import type { Pass } from './pass.ts';
import { PieceCache } from './piece-cache.ts';
import type { Trainer } from './trainer.ts';

/** A layer's parameters: the first element in the flat arena and their count. */
export interface LayerSpan {
  readonly layer: string;
  readonly start: number;
  readonly size: number;
}

/** Stage 2's bounded gradient path. */
interface Bounded {
  readonly bucket: GradientBucket;
  readonly pieces: PieceCache;
  readonly layers: ReadonlyMap<string, LayerSpan>;
}

/** The ops of a layer's whole weight gradient: the kernel, and the tiled kernel's reduce. */
const WHOLE_WEIGHT_GRAD = /\.backward_weight(_reduce)?$/;

export class PartitionedBackward {
  /** The step's gradients, pre-divided by W, by arena offset (stage 2: summed bucket by bucket). */
  readonly host: Float32Array;

  private constructor(
    private readonly trainer: Trainer,
    /** The partition, in elements of the arena; fp16 / bf16: it starts on a word. */
    private readonly part: { readonly start: number; readonly end: number },
    private readonly halves: boolean,
    private readonly factor: GPUBuffer,
    /** Stage 1: one prescale of the whole arena and its readback; stage 2: null. */
    private readonly whole: { readonly scale: Op; readonly readback: Readback } | null,
    private readonly bounded: Bounded | null,
    private readonly paramReadback: Readback,
  ) {
    this.host = bounded?.bucket.host ?? new Float32Array(trainer.spec.total);
  }

  /**
   * For a trainer whose optimizer holds `part`; `bounded`: stage 2's bucket of
   * `bucketSize` elements and the model's layers with parameters; `halves`: fp16 / bf16 parameters.
   */
  static async create(
    trainer: Trainer,
    o: {
      readonly world: number;
      readonly part: { readonly start: number; readonly end: number };
      readonly halves: boolean;
      readonly bounded: { readonly bucketSize: number; readonly layers: readonly LayerSpan[] } | null;
    },
  ): Promise<PartitionedBackward> {
    const { gpu } = trainer;
    const P = trainer.spec.total;
    const factor = bufferFrom(gpu, 'zero.inv_world', Float32Array.of(1 / o.world), 'other');
    const k = await gpu.kernels.get('scale');
    const scale = makeOp(
      gpu,
      k,
      'zero.prescale',
      { count: P, offset: 0, factor_index: 0 },
      { factor, data: trainer.grads },
      grid1d(P, k.overrides.WG ?? 64),
    );
    const n = o.part.end - o.part.start;
    const bounded = o.bounded
      ? {
          bucket: new GradientBucket(gpu, trainer, o.world),
          pieces: new PieceCache(gpu, trainer, o.bounded.bucketSize),
          layers: new Map(o.bounded.layers.map((l) => [l.layer, l])),
        }
      : null;
    return new PartitionedBackward(
      trainer,
      o.part,
      o.halves,
      factor,
      bounded ? (scale.destroy(), null) : { scale, readback: new Readback(gpu, 'zero.grads.readback', P) },
      bounded,
      new Readback(gpu, 'zero.partition.readback', o.halves ? Math.ceil(n / 2) : n),
    );
  }

  /** Records and submits `pass`'s backward; its gradients reach `host` (stage 1: on the `last` micro-batch). */
  async backward(pass: Pass, first: boolean, last: boolean): Promise<void> {
    if (this.bounded) return this.backwardBounded(this.bounded, pass, first);
    const { trainer } = this;
    const { rec } = pass;
    trainer.recordBackward(rec, pass.plan);
    if (last && this.whole) {
      rec.dispatch(this.whole.scale);
      this.whole.readback.record(rec, trainer.grads, 0, trainer.spec.total);
      rec.clear(trainer.grads);
    }
    rec.submit();
    if (last && this.whole) this.host.set(await this.whole.readback.read(trainer.spec.total));
  }

  /** Stage 2: each layer's gradients (a large Linear's in row pieces) pass through the bucket into `host`. */
  private async backwardBounded(s: Bounded, pass: Pass, first: boolean): Promise<void> {
    if (first) this.host.fill(0);
    const { plan } = pass;
    let rec = pass.rec;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    for (const seg of plan.backward) {
      const l = s.layers.get(seg.layer);
      const large = s.pieces.layer(seg.layer);
      // A large layer's whole-layer weight gradient would not fit the bucket: its pieces replace it
      // (and the tiled kernel's reduce of split-K slices, where the tuning picks the tiled kernel).
      for (const op of seg.ops) if (!large || !WHOLE_WEIGHT_GRAD.test(op.label)) rec.dispatch(op);
      if (!l) continue;
      if (!large) {
        rec = await s.bucket.drain(rec, l.size, [[l.start, 0, l.size]]);
        continue;
      }
      rec = await s.pieces.drainWeightPieces(rec, s.bucket, large, seg.io, plan.batch);
    }
    rec.submit();
  }

  /**
   * Steps the partition from its reduced (and clipped) gradients `chunk` and returns the
   * partition's new values as the layers hold them (fp16 / bf16: packed words, from part.start / 2);
   * null for an empty partition.
   */
  async update(chunk: Float32Array, lr: number): Promise<Float32Array | null> {
    const { trainer, part } = this;
    trainer.writeShardGrads(chunk);
    const half = this.halves ? 2 : 1;
    const n = Math.ceil((part.end - part.start) / half);
    const rec = new Recorder(trainer.gpu, 'zero.update');
    trainer.recordUpdate(rec, lr);
    if (n > 0) this.paramReadback.record(rec, trainer.params, part.start / half, n);
    rec.submit();
    if (n === 0) return null;
    return trainer.gpu.tracer.span('readback params', 'step', () => this.paramReadback.read(n));
  }

  destroy(): void {
    this.whole?.scale.destroy();
    this.whole?.readback.destroy();
    this.bounded?.bucket.destroy();
    this.bounded?.pieces.destroy();
    this.trainer.gpu.memory.destroy(this.factor);
    this.paramReadback.destroy();
  }
}
