// A large Linear layer computed in bucket-sized pieces, so that ZeRO never needs a buffer of the
// whole layer: its weight gradient in row pieces (rows [o0, o1) of dW and db: stage 2 and 3's
// gradient bucket), and for stage 3 its forward in row pieces and its input gradient in column
// pieces (columns [i0, i1) of W), each from a working buffer that holds only that piece. The
// kernels are the layer's own (same per-element sums in the same order, so the result is
// bit-identical to the whole-layer dispatch); strided rows of the activations move through small
// temporaries with one copyBufferToBuffer per sample.
import type { Gpu } from '../gpu/device.ts';
import { halvesOf, isHalfBuffer } from '../gpu/half-acts.ts';
import type { ParamStorage } from '../gpu/half-params.ts';
import { cdiv, makeOp, type Op } from '../gpu/op.ts';
import type { Recorder } from '../gpu/recorder.ts';
import type { LinearLayer } from '../nn/layers/linear.ts';
import { BUCKET, pieceShape } from './piece-shape.ts';

/** [src, srcOffset, dst, dstOffset, bytes] */
type Copy = readonly [GPUBuffer, number, GPUBuffer, number, number];

export interface Piece {
  /** First and last + 1 row (output feature) or column (input feature) of the weight. */
  readonly from: number;
  readonly to: number;
  readonly op: Op;
  readonly before: readonly Copy[];
  readonly after: readonly Copy[];
}

/** Records a piece: its copies in, its kernel, its copies out. */
export function recordPiece(rec: Recorder, p: Piece): void {
  for (const c of p.before) rec.copy(...c);
  rec.dispatch(p.op);
  for (const c of p.after) rec.copy(...c);
}

function ranges(total: number, per: number): [number, number][] {
  const out: [number, number][] = [];
  for (let a = 0; a < total; a += per) out.push([a, Math.min(total, a + per)]);
  return out;
}

/** Copies of `n` samples' slice [a, a + k) of a row-major [n, width] buffer into / out of a dense [n, k] one. */
function strided(full: GPUBuffer, width: number, dense: GPUBuffer, a: number, k: number, n: number, out: boolean) {
  return Array.from({ length: n }, (_, s): Copy =>
    out ? [dense, s * k * 4, full, (s * width + a) * 4, k * 4] : [full, (s * width + a) * 4, dense, s * k * 4, k * 4],
  );
}

export interface PieceBuffers {
  readonly x: GPUBuffer;
  readonly y: GPUBuffer;
  readonly dy: GPUBuffer;
  readonly dx: GPUBuffer | null;
  /** Holds one piece's weights (rows: [rows, i] then the rows' bias; columns: [o, cols]). */
  readonly working: GPUBuffer;
  /** How `working` stores them: float32, or packed halves (ZeRO-3 with fp16). */
  readonly storage: ParamStorage;
  /** Receives one row piece's weight gradient [rows, i] then its bias gradient. */
  readonly bucket: GPUBuffer;
  /** Two temporaries of maxBatch x max(rows, cols) floats. */
  readonly tmpIn: GPUBuffer;
  readonly tmpOut: GPUBuffer;
}

/** Weight-gradient row pieces: dW[o0:o1] += dy[:, o0:o1]^T x and db[o0:o1] += sum dy[:, o0:o1], into `bucket` at 0. */
export async function weightGradPieces(
  gpu: Gpu,
  l: LinearLayer,
  b: PieceBuffers,
  n: number,
  bucket = BUCKET,
): Promise<Piece[]> {
  const [o = 0, i = 0] = l.weight.shape;
  const k = await gpu.kernels.get('linear_backward_weight', {}, 'f32', halvesOf({ x: b.x }));
  const { WG_X = 16, WG_Y = 4 } = k.overrides;
  return ranges(o, pieceShape(o, i, bucket).rows).map(([a, e]) => ({
    from: a,
    to: e,
    before: strided(b.dy, o, b.tmpIn, a, e - a, n, false),
    op: makeOp(
      gpu,
      k,
      `${l.name}.backward_weight[${a}:${e}]`,
      { n, i, o: e - a, w_off: 0, b_off: (e - a) * i },
      { dy: b.tmpIn, x: b.x, grad: b.bucket },
      [cdiv(cdiv(i, 4), WG_X), cdiv(cdiv(e - a, 4), WG_Y), 1],
    ),
    after: [],
  }));
}

/** Forward row pieces: y[:, o0:o1] = relu?(x W[o0:o1]^T + b[o0:o1]), the piece's weights and bias in `working`. */
export async function forwardPieces(gpu: Gpu, l: LinearLayer, b: PieceBuffers, n: number, bucket = BUCKET) {
  const [o = 0, i = 0] = l.weight.shape;
  const k = await gpu.kernels.get('linear_forward', {}, b.storage, halvesOf({ x: b.x }));
  const { WG_X = 16, WG_Y = 4 } = k.overrides;
  return ranges(o, pieceShape(o, i, bucket).rows).map(([a, e]): Piece => ({
    from: a,
    to: e,
    before: [],
    op: makeOp(
      gpu,
      k,
      `${l.name}.forward[${a}:${e}]`,
      { n, i, o: e - a, w_off: 0, b_off: (e - a) * i, relu: l.relu ? 1 : 0 },
      { x: b.x, theta: b.working, y: b.tmpOut },
      [cdiv(cdiv(e - a, 4), WG_X), cdiv(cdiv(n, 4), WG_Y), 1],
    ),
    after: strided(b.y, o, b.tmpOut, a, e - a, n, true),
  }));
}

/** Input-gradient column pieces: dx[:, i0:i1] = dy W[:, i0:i1] (masked by x > 0), W's columns [o, cols] in `working`. */
export async function inputGradPieces(gpu: Gpu, l: LinearLayer, b: PieceBuffers, n: number, bucket = BUCKET) {
  const [o = 0, i = 0] = l.weight.shape;
  if (!b.dx) return [];
  const dx = b.dx;
  if (l.maskInputGrad && isHalfBuffer(b.x))
    throw new Error(`${l.name}: input-gradient pieces copy float32 rows of the input; it holds fp16 halves`);
  const k = await gpu.kernels.get('linear_backward_input', {}, b.storage);
  const { WG_X = 16, WG_Y = 4 } = k.overrides;
  return ranges(i, pieceShape(o, i, bucket).cols).map(([a, e]): Piece => ({
    from: a,
    to: e,
    before: l.maskInputGrad ? strided(b.x, i, b.tmpIn, a, e - a, n, false) : [],
    op: makeOp(
      gpu,
      k,
      `${l.name}.backward_input[${a}:${e}]`,
      { n, i: e - a, o, w_off: 0, relu_mask: l.maskInputGrad ? 1 : 0 },
      { dy: b.dy, theta: b.working, x: b.tmpIn, dx: b.tmpOut },
      [cdiv(cdiv(e - a, 4), WG_X), cdiv(cdiv(n, 4), WG_Y), 1],
    ),
    after: strided(dx, i, b.tmpOut, a, e - a, n, true),
  }));
}
