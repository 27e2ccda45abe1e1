// The device side of a replica that holds only its partition of every layer (ZeRO-3): the layers
// read their parameters from one bounded working buffer (the trainer's `params`, laid out by the
// mode's parameterLayout), into which each layer is loaded just before its forward and again
// before its backward, from the host values the mode has just gathered (LayerParams); a large
// Linear layer is loaded and computed in pieces (row pieces for the forward and the weight
// gradient, column pieces for the input gradient: piece-cache.ts), each load releasing what the
// last one held. The backward's gradients leave layer by layer through the bounded bucket
// (grad-bucket.ts) into host memory, pre-divided by W. The partition itself (its fp32 values,
// reduced gradients and optimizer; fp16: the fp32 master and the partition's halves) lives here
// too: update() steps it and reads its new values back for the mode's next gathers.
import { storageBuffer, writeFloats } from '../gpu/buffers.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { Batch } from '../data/batch.ts';
import type { StepPlan } from '../nn/model.ts';
import { createOptimizer } from '../optim/create-optimizer.ts';
import type { Optimizer, OptimizerConfig } from '../optim/optimizer.ts';
import { packHalves } from '../numeric/f16.ts';
import { GradientBucket } from './grad-bucket.ts';
import { recordPiece } from './linear-pieces.ts';
import { PieceCache } from './piece-cache.ts';
import type { LinearLayer } from '../nn/layers/linear.ts';
import { Pass } from './pass.ts';
import type { Trainer } from './trainer.ts';
import type { StepResult } from './trainer-options.ts';
import type { LayerSpan } from './partitioned.ts';

/**
 * The mode's side of the layers' parameters: the host arena of gathered values (by arena offset)
 * and the collective that fills a layer of it.
 */
export interface LayerParams {
  /** Every layer's last gathered values, by arena offset. */
  readonly values: Float32Array;
  /** Where layer `name`'s parameters lie in the arena; null for a layer without parameters. */
  span(name: string): LayerSpan | null;
  /** Gathers layer `name` into `values` (every rank calls it, in the same order). */
  gather(name: string): Promise<void>;
  /** Layer `name`'s last gathered parameters as the working buffer holds them (fp16: packed halves). */
  held(name: string): Float32Array | Uint32Array;
}

const words = (n: number) => Math.ceil(n / 2);

export class LayerwiseReplica {
  /** The step's gradients, pre-divided by W, by arena offset (summed bucket by bucket). */
  readonly grads: Float32Array;

  private constructor(
    private readonly trainer: Trainer,
    private readonly bucket: GradientBucket,
    private readonly pieces: PieceCache,
    /** The partition: values (fp16: the fp32 master, optimizer state), reduced gradients, optimizer. */
    readonly partParams: GPUBuffer,
    private readonly partGrads: GPUBuffer,
    readonly optimizer: Optimizer,
    private readonly readback: Readback,
    /** fp16: the partition's halves and the cast of the master into them; null: float32. */
    private readonly half: {
      readonly buffer: GPUBuffer;
      readonly words: number;
      readonly cast: Op<'cast_f32_to_f16'>;
    } | null,
  ) {
    this.grads = bucket.host;
  }

  /** A partition of `count` elements (fp16: even), stepped by `optimizer`. */
  static async create(
    trainer: Trainer,
    o: {
      readonly world: number;
      readonly count: number;
      readonly bucketSize: number;
      readonly optimizer: OptimizerConfig;
      readonly fp16: boolean;
    },
  ): Promise<LayerwiseReplica> {
    const { gpu } = trainer;
    const { count, fp16 } = o;
    const n = Math.max(1, count);
    // fp16: the fp32 partition is the master copy the optimizer steps (optimizer state, as Fp32Master's)
    const partParams = fp16
      ? storageBuffer(gpu, 'params.partition.fp32_master', n * 4, 'optimizer')
      : storageBuffer(gpu, 'params.partition', n * 4, 'parameters');
    const partGrads = storageBuffer(gpu, 'grads.partition', n * 4, 'gradients');
    const optimizer = await createOptimizer(gpu, o.optimizer, {
      params: partParams,
      grads: partGrads,
      paramOffset: 0,
      gradOffset: 0,
      count,
    });
    const bucket = new GradientBucket(gpu, trainer, o.world);
    const readback = new Readback(gpu, 'zero3.partition.readback', fp16 ? Math.ceil(n / 2) : n);
    let half = null;
    if (fp16) {
      const hw = Math.max(1, words(count));
      const buffer = storageBuffer(gpu, 'params.partition.fp16', hw * 4, 'parameters');
      const k = await gpu.kernels.get('cast_f32_to_f16');
      const cast = makeOp(
        gpu,
        k,
        'params.partition.cast',
        { count, s_off: 0, d_off: 0, scale: 1 },
        { src: partParams, dst: buffer },
        grid1d(words(count), k.overrides.WG ?? 64),
      );
      half = { buffer, words: hw, cast };
    }
    const pieces = new PieceCache(gpu, trainer, o.bucketSize, fp16 ? 'f16' : 'f32');
    return new LayerwiseReplica(trainer, bucket, pieces, partParams, partGrads, optimizer, readback, half);
  }

  /** Sets the partition (fp16: the master's values and the partition's halves). */
  setPartition(values: Float32Array, halves: Uint32Array | null): void {
    const { uploads } = this.trainer.gpu;
    uploads.write(this.partParams, 0, values, 'communication', 'params.partition');
    if (this.half && halves) uploads.write(this.half.buffer, 0, halves, 'communication', 'params.partition.fp16');
  }

  /**
   * Writes `data` into the working buffer, after the work recorded so far (which used its old
   * contents). queue.writeBuffer, not the upload pool: a forward writes ~20 pieces back to back,
   * and the pool would keep a mapped staging buffer per piece in flight (6.7 MB measured), memory
   * a gathered layer does not need (the same choice as DataParallel's reduce-add).
   */
  private load(rec: Recorder, data: Float32Array | Uint32Array): Recorder {
    rec.submit();
    writeFloats(this.trainer.gpu, this.trainer.params, 0, data);
    return new Recorder(this.trainer.gpu, 'zero3.layer');
  }

  /** A piece (rows or columns of the gathered values) as the working buffer holds it. */
  private piece(data: Float32Array): Float32Array | Uint32Array {
    return this.half ? packHalves(data) : data;
  }

  /** Forward (and the loss) of `plan`, each layer from freshly gathered parameters (`gather` false: from the last gather). */
  private async recordForward(rec: Recorder, plan: StepPlan, bytes: boolean, p: LayerParams, gather: boolean) {
    rec.phase('forward');
    if (bytes) rec.dispatch(plan.normalize);
    for (const f of plan.forwardLayers) {
      if (!p.span(f.layer)) {
        for (const op of f.ops) rec.dispatch(op);
        continue;
      }
      if (gather) await p.gather(f.layer);
      const large = this.pieces.layer(f.layer);
      if (!large) {
        rec = this.load(rec, p.held(f.layer));
        for (const op of f.ops) rec.dispatch(op);
        continue;
      }
      const io = { x: f.x, y: f.y, dy: f.y, dx: null };
      for (const piece of await this.pieces.get('forward', large, io, plan.batch)) {
        rec = this.load(rec, this.piece(rowsOf(p.values, large, piece.from, piece.to)));
        recordPiece(rec, piece);
      }
    }
    rec.dispatch(plan.lossForward);
    return rec;
  }

  /** Uploads `batch` and records its forward from gathered layers; the loss gradient carries `lossScale`. */
  async forward(batch: Batch, lossScale: number, p: LayerParams): Promise<Pass> {
    const { trainer } = this;
    const plan = await trainer.upload(batch);
    plan.lossBackward.setParams({ scale: lossScale });
    const rec = await this.recordForward(new Recorder(trainer.gpu, 'zero3.forward'), plan, 'images' in batch, p, true);
    return new Pass(trainer, rec, plan, trainer.copyStats(rec));
  }

  /** Forward only, from the last gathered parameters. */
  async evaluate(b: Batch, p: LayerParams): Promise<StepResult> {
    const { trainer } = this;
    const plan = await trainer.upload(b);
    const rec = await this.recordForward(new Recorder(trainer.gpu, 'zero3.eval'), plan, 'images' in b, p, false);
    return trainer.finish(rec, plan.batch, undefined, false);
  }

  /** The loss gradient and the backward, each layer gathered again; its gradients drained into `grads`. Submits. */
  async backward(pass: Pass, p: LayerParams): Promise<void> {
    const { plan } = pass;
    let rec = pass.rec;
    rec.phase('backward');
    rec.dispatch(plan.lossBackward);
    for (const seg of plan.backward) {
      const l = p.span(seg.layer);
      if (!l) {
        for (const op of seg.ops) rec.dispatch(op);
        continue;
      }
      await p.gather(seg.layer);
      const large = this.pieces.layer(seg.layer);
      if (!large) {
        rec = this.load(rec, p.held(seg.layer));
        for (const op of seg.ops) rec.dispatch(op);
        rec = await this.bucket.drain(rec, l.size, [[l.start, 0, l.size]]);
        continue;
      }
      for (const piece of await this.pieces.get('input', large, seg.io, plan.batch)) {
        rec = this.load(rec, this.piece(columnsOf(p.values, large, piece.from, piece.to)));
        recordPiece(rec, piece);
      }
      rec = await this.pieces.drainWeightPieces(rec, this.bucket, large, seg.io, plan.batch);
    }
    rec.submit();
  }

  /**
   * Steps the partition from its reduced (clipped) gradients `g`; returns its new values as the
   * layers hold them: float32 values, or (fp16) the halves cast from the stepped master.
   */
  async update(g: Float32Array, lr: number): Promise<Float32Array> {
    const { gpu } = this.trainer;
    writeFloats(gpu, this.partGrads, 0, g);
    const rec = new Recorder(gpu, 'zero3.update');
    rec.phase('optimizer');
    this.optimizer.record(rec, lr);
    const n = this.half ? this.half.words : g.length;
    if (this.half) rec.dispatch(this.half.cast);
    this.readback.record(rec, this.half ? this.half.buffer : this.partParams, 0, n);
    rec.submit();
    return this.readback.read(n);
  }

  destroy(): void {
    const m = this.trainer.gpu.memory;
    this.optimizer.destroy();
    this.bucket.destroy();
    this.pieces.destroy();
    this.readback.destroy();
    m.destroy(this.partParams);
    m.destroy(this.partGrads);
    if (this.half) {
      this.half.cast.destroy();
      m.destroy(this.half.buffer);
    }
  }
}

/**
 * A piece of a large Linear(i, o) from the gathered layer (arena order: weight [o, i], then bias
 * [o]): rows [a, e) of the weight followed by the same rows of the bias (forward), or columns
 * [a, e) of the weight as a dense [o, e - a] block (input gradient), the layouts linear-pieces.ts binds.
 */
export function rowsOf(arena: Float32Array, l: LinearLayer, a: number, e: number): Float32Array {
  const [, i = 0] = l.weight.shape;
  const out = new Float32Array((e - a) * (i + 1));
  out.set(arena.subarray(l.weight.offset + a * i, l.weight.offset + e * i), 0);
  out.set(arena.subarray(l.bias.offset + a, l.bias.offset + e), (e - a) * i);
  return out;
}

export function columnsOf(arena: Float32Array, l: LinearLayer, a: number, e: number): Float32Array {
  const [o = 0, i = 0] = l.weight.shape;
  const k = e - a;
  const out = new Float32Array(o * k);
  for (let r = 0; r < o; r++) {
    const row = l.weight.offset + r * i;
    out.set(arena.subarray(row + a, row + e), r * k);
  }
  return out;
}
