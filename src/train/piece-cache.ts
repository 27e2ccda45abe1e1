// The pieces of every large Linear layer (linear-pieces.ts), built once per batch size, and the
// two small temporaries they share (maxBatch x the widest piece; activations).
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Recorder } from '../gpu/recorder.ts';
import { wholeBuffer, type Operand } from '../gpu/operand.ts';
import type { GradientBucket } from './grad-bucket.ts';
import type { ParamStorage } from '../gpu/half-params.ts';
import type { BackwardIO } from '../nn/layer.ts';
import { LinearLayer } from '../nn/layers/linear.ts';
import type { Trainer } from './trainer.ts';
import {
  forwardPieces,
  inputGradPieces,
  recordPiece,
  weightGradPieces,
  type Piece,
  type PieceBuffers,
} from './linear-pieces.ts';
import { isLarge, pieceShape } from './piece-shape.ts';

export type PieceKind = 'weight' | 'forward' | 'input';

const BUILD = { weight: weightGradPieces, forward: forwardPieces, input: inputGradPieces } as const;

export class PieceCache {
  private readonly tmpIn: GPUBuffer;
  private readonly tmpOut: GPUBuffer;
  private readonly cache = new Map<string, Promise<Piece[]>>();

  constructor(
    private readonly gpu: Gpu,
    private readonly trainer: Trainer,
    /** The bucket, in elements (TrainConfig.reduceBucketSize). */
    private readonly bucket: number,
    /** How the trainer's working buffer stores the parameters (ZeRO-3 with fp16: packed halves). */
    private readonly storage: ParamStorage = 'f32',
  ) {
    const widths = this.large().map((l) => {
      const [o = 0, i = 0] = l.weight.shape;
      const { rows, cols } = pieceShape(o, i, this.bucket);
      return Math.max(Math.min(rows, o), Math.min(cols, i));
    });
    const n = trainer.model.maxBatch * Math.max(1, ...widths);
    this.tmpIn = storageBuffer(gpu, 'zero.piece.in', n * 4, 'activations');
    this.tmpOut = storageBuffer(gpu, 'zero.piece.out', n * 4, 'activations');
  }

  /** The model's Linear layers larger than one bucket. */
  large(): LinearLayer[] {
    return this.trainer.model.layers.filter(
      (l): l is LinearLayer => l instanceof LinearLayer && isLarge(l, this.bucket),
    );
  }

  /** The large Linear layer `name`, or null when that layer is kept whole. */
  layer(name: string): LinearLayer | null {
    return this.large().find((l) => l.name === name) ?? null;
  }

  /** `kind` pieces of `layer` for a batch of `n`, on the layer's buffers `io` (the forward's: dy = dx = y). */
  get(kind: PieceKind, layer: LinearLayer, io: BackwardIO, n: number): Promise<Piece[]> {
    const key = `${kind}:${layer.name}:${n}`;
    let p = this.cache.get(key);
    if (!p) {
      const whole = (o: Operand) => wholeBuffer(o, `${layer.name} pieces`);
      const b: PieceBuffers = {
        x: whole(io.x),
        y: whole(io.y),
        dy: whole(io.dy),
        dx: io.dx && whole(io.dx),
        working: this.trainer.params,
        storage: this.storage,
        bucket: this.trainer.grads,
        tmpIn: this.tmpIn,
        tmpOut: this.tmpOut,
      };
      p = BUILD[kind](this.gpu, layer, b, n, this.bucket);
      this.cache.set(key, p);
    }
    return p;
  }

  /**
   * Records `layer`'s weight-gradient pieces, each drained into `bucket` (its weight rows, then
   * their biases) as soon as it is recorded; returns the recorder to go on with.
   */
  async drainWeightPieces(
    rec: Recorder,
    bucket: GradientBucket,
    layer: LinearLayer,
    io: BackwardIO,
    n: number,
  ): Promise<Recorder> {
    const [, i = 0] = layer.weight.shape;
    for (const p of await this.get('weight', layer, io, n)) {
      recordPiece(rec, p);
      const rows = p.to - p.from;
      rec = await bucket.drain(rec, rows * (i + 1), [
        [layer.weight.offset + p.from * i, 0, rows * i],
        [layer.bias.offset + p.from, rows * i, rows],
      ]);
    }
    return rec;
  }

  destroy(): void {
    for (const p of this.cache.values())
      void p.then(
        (ps) => ps.forEach((x) => x.op.destroy()),
        () => undefined,
      );
    this.gpu.memory.destroy(this.tmpIn);
    this.gpu.memory.destroy(this.tmpOut);
  }
}
