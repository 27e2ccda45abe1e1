// ZeRO-3's per-layer parameter path on one rank: the host's copy of the rank's partition and the
// all-gathers' receive buffer; a layer all-gathered before its forward and again before its
// backward, and uploaded into the trainer's working buffer whole or piece by piece (a large
// Linear in row pieces for the forward and weight gradient, column pieces for the input
// gradient), each upload releasing what the last one held; the forward and backward recorded
// around those uploads, the backward's gradients leaving through the stage-2 bucket.
import { writeFloats } from '../../gpu/buffers.ts';
import { Recorder } from '../../gpu/recorder.ts';
import type { StepPlan } from '../../nn/model.ts';
import { packHalves } from '../../reference/f16.ts';
import type { ModeContext } from '../mode.ts';
import type { GradientBucket } from '../../train/grad-bucket.ts';
import type { OwnedChunk } from './layout.ts';
import { recordPiece } from '../../train/linear-pieces.ts';
import { PieceCache } from '../../train/piece-cache.ts';
import { columnsOf, rowsOf } from './stage3-pack.ts';
import type { Zero3Halves } from './stage3-half.ts';

export class Zero3Layers {
  /** Where all-gathers land (host memory: the ring's receive buffer), by arena offset. */
  readonly gathered: Float32Array;
  /** This rank's partition (host copy of the runner's `partParams`). */
  readonly part: Float32Array;
  private readonly byName: ReadonlyMap<string, OwnedChunk>;
  private readonly pieces: PieceCache;

  constructor(
    private readonly ctx: ModeContext,
    private readonly owned: readonly OwnedChunk[],
    private readonly bucket: GradientBucket,
    /** fp16 mixed precision; null: float32 parameters. */
    private readonly half: Zero3Halves | null,
    /** Elements in the partition (fp16: with each chunk padded to a whole word). */
    count: number,
  ) {
    this.pieces = new PieceCache(ctx.gpu, ctx.trainer, ctx.config.reduceBucketSize, half ? 'f16' : 'f32');
    this.gathered = new Float32Array(ctx.trainer.spec.total);
    this.part = new Float32Array(Math.max(1, count));
    this.byName = new Map(owned.map((o) => [o.l.layer, o]));
  }

  /** All-gathers one layer into `gathered` (this rank contributes its chunk); fp16: its halves. */
  private async gather(o: OwnedChunk): Promise<void> {
    if (this.half) {
      this.gathered.set(await this.half.gather(this.ctx, o), o.l.start);
      return;
    }
    const view = this.gathered.subarray(o.l.start, o.l.start + o.l.size);
    view.set(this.part.subarray(o.at, o.at + o.own.end - o.own.start), o.own.start);
    if (this.ctx.world > 1) await this.ctx.comm(() => this.ctx.pg.allGather(view));
  }

  /** All-gathers every layer into `gathered`. */
  async gatherAll(): Promise<void> {
    for (const o of this.owned) await this.gather(o);
  }

  /**
   * Writes `data` into the working buffer, after the work recorded so far (which used its old
   * contents). queue.writeBuffer, not the upload pool: a forward writes ~20 pieces back to back,
   * and the pool would keep a mapped staging buffer per piece in flight (6.7 MB measured), memory
   * a gathered layer does not need (the same choice as DataParallel's reduce-add).
   */
  private load(rec: Recorder, data: Float32Array | Uint32Array): Recorder {
    rec.submit();
    writeFloats(this.ctx.gpu, this.ctx.trainer.params, 0, data);
    return new Recorder(this.ctx.gpu, 'zero3.layer');
  }

  /** A whole small layer as the working buffer holds it (fp16: its gathered halves). */
  private whole(o: OwnedChunk): Float32Array | Uint32Array {
    if (this.half) return this.half.layer(o);
    return this.gathered.subarray(o.l.start, o.l.start + o.l.size);
  }

  /** A piece (rowsOf / columnsOf of the gathered values) as the working buffer holds it. */
  private piece(data: Float32Array): Float32Array | Uint32Array {
    return this.half ? packHalves(data) : data;
  }

  /** Forward (and the loss), each layer from freshly gathered parameters (`gather` false: from the last gather). */
  async forward(first: Recorder, plan: StepPlan, bytes: boolean, gather: boolean): Promise<Recorder> {
    let rec = first;
    rec.phase('forward');
    if (bytes) rec.dispatch(plan.normalize);
    for (const f of plan.forwardLayers) {
      const o = this.byName.get(f.layer);
      if (!o) {
        for (const op of f.ops) rec.dispatch(op);
        continue;
      }
      if (gather) await this.gather(o);
      const large = this.pieces.layer(f.layer);
      if (!large) {
        rec = this.load(rec, this.whole(o));
        for (const op of f.ops) rec.dispatch(op);
        continue;
      }
      const io = { x: f.x, y: f.y, dy: f.y, dx: null };
      for (const p of await this.pieces.get('forward', large, io, plan.batch)) {
        rec = this.load(rec, this.piece(rowsOf(this.gathered, large, p.from, p.to)));
        recordPiece(rec, p);
      }
    }
    rec.dispatch(plan.lossForward);
    return rec;
  }

  /** The loss gradient and the backward, each layer gathered again; its gradients drained into the bucket. Submits. */
  async backward(first: Recorder, plan: StepPlan): Promise<void> {
    let rec = first;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    for (const seg of plan.backward) {
      const o = this.byName.get(seg.layer);
      if (!o) {
        for (const op of seg.ops) rec.dispatch(op);
        continue;
      }
      await this.gather(o);
      const large = this.pieces.layer(seg.layer);
      if (!large) {
        rec = this.load(rec, this.whole(o));
        for (const op of seg.ops) rec.dispatch(op);
        rec = await this.bucket.drain(rec, o.l.size, [[o.l.start, 0, o.l.size]]);
        continue;
      }
      for (const p of await this.pieces.get('input', large, seg.io, plan.batch)) {
        rec = this.load(rec, this.piece(columnsOf(this.gathered, large, p.from, p.to)));
        recordPiece(rec, p);
      }
      rec = await this.pieces.drainWeightPieces(rec, this.bucket, large, seg.io, plan.batch);
    }
    rec.submit();
  }

  destroy(): void {
    this.pieces.destroy();
  }
}
