// SimpleCNN reference: the whole model's forward, mean cross-entropy loss and backward on the flat
// parameter arena of a ModelSpec (src/nn/spec.ts), at any width, composed from the reference ops:
//   x [N,3,32,32] -conv1+relu-> a1 [N,c1,32,32] -pool-> p1 [N,c1,16,16]
//   -conv2+relu-> a2 [N,c2,16,16] -pool-> p2 [N,c2,8,8] = [N, c2*64] (C,H,W order)
//   -fc1+relu-> h [N,hidden] -fc2-> logits [N,10];  loss = mean cross-entropy
// The backward is the one the GPU records: softmax_xent backward (scale 1/N), fc2 weight,
// fc2 input with the ReLU mask of h, fc1 weight, fc1 input, pool2 backward with the ReLU mask of
// a2, conv2 weight, conv2 input, pool1 backward with the ReLU mask of a1, conv1 weight.
// With halfActivations (fp16 mixed precision: src/gpu/half-acts.ts), the tensors the GPU stores as
// halves are rounded to half where they are stored: the input x and a1, p1, a2, p2; the arithmetic
// stays float32 (float64 sums, rounded once), and the backward reads the rounded tensors.
import type { ModelSpec, ParamSpec } from '../nn/spec.ts';
import { f16Round } from '../numeric/f16.ts';
import { conv2dBackwardInput, conv2dBackwardWeight, conv2dForward } from './conv2d.ts';
import { linearBackwardInput, linearBackwardWeight, linearForward } from './linear.ts';
import { maxPool2dBackward, maxPool2dForward } from './maxpool2d.ts';
import { softmaxXentBackward, softmaxXentForward } from './softmax-xent.ts';
import { expectLength, type Tensor } from './tensor.ts';

/** Every activation of one forward pass (what the backward needs), float32 unless asked for float64. */
export interface SimpleCnnActivations<T extends Tensor = Float32Array> {
  readonly n: number;
  readonly a1: T; //     [N, c1, 32, 32] relu(conv1(x))
  readonly p1: T; //     [N, c1, 16, 16]
  readonly a2: T; //     [N, c2, 16, 16] relu(conv2(p1))
  readonly p2: T; //     [N, c2, 8, 8] = [N, c2*64]
  readonly h: T; //      [N, hidden] relu(fc1(p2))
  readonly logits: T; // [N, classes]
}

/** What simpleCnnStep returns. */
export interface SimpleCnnResult<T extends Tensor = Float32Array> {
  readonly logits: T; // [N, classes]
  /** Mean cross-entropy (float64). */
  readonly loss: number;
  /** Samples whose argmax logit is the label. */
  readonly correct: number;
  readonly grad: T; //   [spec.total] flat gradient arena, in the spec's order
}

type Alloc<T extends Tensor> = (size: number) => T;
const f32Alloc: Alloc<Float32Array> = (size) => new Float32Array(size);

/** A parameter's slice of a flat arena (a view, no copy). */
export function paramView<T extends Tensor>(arena: T, p: ParamSpec): T {
  return arena.subarray(p.offset, p.offset + p.size) as T;
}

function views<T extends Tensor>(spec: ModelSpec, arena: T): T[] {
  expectLength('SimpleCNN arena', arena, spec.total, 'spec.total');
  return spec.params.map((p) => paramView(arena, p));
}

function sizes(spec: ModelSpec, n: number) {
  const [, h, w] = spec.input;
  const { c1, c2, hidden, classes } = spec;
  const h2 = h / 2;
  const w2 = w / 2;
  return {
    conv1: { n, ci: spec.input[0], co: c1, h, w },
    pool1: { nc: n * c1, h, w },
    conv2: { n, ci: c1, co: c2, h: h2, w: w2 },
    pool2: { nc: n * c2, h: h2, w: w2 },
    fc1: { n, i: c2 * (h2 / 2) * (w2 / 2), o: hidden },
    fc2: { n, i: hidden, o: classes },
  };
}

/** `t` rounded to half in place (fp16 activation storage). */
function toHalves<T extends Tensor>(t: T): T {
  for (let i = 0; i < t.length; i++) t[i] = f16Round(t[i] ?? 0);
  return t;
}

/**
 * Forward pass; pass `alloc` = (s) => new Float64Array(s) to run it in float64. With
 * `halfActivations`, a1, p1, a2 and p2 are rounded to half (x must already be: simpleCnnStep rounds it).
 */
function simpleCnnForward<T extends Tensor = Float32Array>(
  spec: ModelSpec,
  params: Tensor, // [spec.total] flat parameter arena
  x: Tensor, //      [N, 3, 32, 32]
  n: number,
  alloc: Alloc<T> = f32Alloc as unknown as Alloc<T>,
  halfActivations = false,
): SimpleCnnActivations<T> {
  const stored = halfActivations ? toHalves : <U extends Tensor>(t: U) => t;
  const [w1, b1, w2, b2, w3, b3, w4, b4] = views(spec, params) as [
    Tensor,
    Tensor,
    Tensor,
    Tensor,
    Tensor,
    Tensor,
    Tensor,
    Tensor,
  ];
  const s = sizes(spec, n);
  const a1 = stored(conv2dForward(x, w1, b1, s.conv1, true, alloc(n * spec.c1 * s.conv1.h * s.conv1.w)));
  const p1 = stored(maxPool2dForward(a1, s.pool1, alloc(n * spec.c1 * s.conv2.h * s.conv2.w)));
  const a2 = stored(conv2dForward(p1, w2, b2, s.conv2, true, alloc(n * spec.c2 * s.conv2.h * s.conv2.w)));
  const p2 = stored(maxPool2dForward(a2, s.pool2, alloc(n * s.fc1.i)));
  const h = linearForward(p2, w3, b3, s.fc1, true, alloc(n * spec.hidden));
  const logits = linearForward(h, w4, b4, s.fc2, false, alloc(n * spec.classes));
  return { n, a1, p1, a2, p2, h, logits };
}

/** Backward from the activations: the flat gradient of the mean loss (written, not accumulated). */
function simpleCnnBackward<T extends Tensor = Float32Array>(
  spec: ModelSpec,
  params: Tensor, //   [spec.total] flat parameter arena
  x: Tensor, //        [N, 3, 32, 32]
  y: Int32Array, //    [N] labels
  act: SimpleCnnActivations<T>,
  alloc: Alloc<T> = f32Alloc as unknown as Alloc<T>,
): T {
  const n = act.n;
  const [, , w2, , w3, , w4] = views(spec, params) as [Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor];
  const grad = alloc(spec.total);
  const [gw1, gb1, gw2, gb2, gw3, gb3, gw4, gb4] = views(spec, grad) as [T, T, T, T, T, T, T, T];
  const s = sizes(spec, n);
  const dlogits = softmaxXentBackward(act.logits, y, { n, c: spec.classes }, 1 / n, alloc(act.logits.length));
  linearBackwardWeight(dlogits, act.h, s.fc2, { dw: gw4, db: gb4 });
  const dh = linearBackwardInput(dlogits, w4, act.h, s.fc2, true, alloc(act.h.length));
  linearBackwardWeight(dh, act.p2, s.fc1, { dw: gw3, db: gb3 });
  const dp2 = linearBackwardInput(dh, w3, null, s.fc1, false, alloc(act.p2.length));
  const da2 = maxPool2dBackward(act.a2, dp2, s.pool2, true, alloc(act.a2.length));
  conv2dBackwardWeight(da2, act.p1, s.conv2, { dw: gw2, db: gb2 });
  const dp1 = conv2dBackwardInput(da2, w2, s.conv2, alloc(act.p1.length));
  const da1 = maxPool2dBackward(act.a1, dp1, s.pool1, true, alloc(act.a1.length));
  conv2dBackwardWeight(da1, x, s.conv1, { dw: gw1, db: gb1 });
  return grad;
}

/**
 * Forward, mean cross-entropy loss and backward: logits, loss, correct count and flat gradient.
 * `halfActivations`: the input and the conv and pool outputs rounded to half where stored.
 */
export function simpleCnnStep<T extends Tensor = Float32Array>(
  spec: ModelSpec,
  params: Tensor, // [spec.total] flat parameter arena
  input: Tensor, //  [N, 3, 32, 32]
  y: Int32Array, //  [N] labels in 0..9
  alloc: Alloc<T> = f32Alloc as unknown as Alloc<T>,
  halfActivations = false,
): SimpleCnnResult<T> {
  const n = y.length;
  const [c, h, w] = spec.input;
  expectLength('SimpleCNN x', input, n * c * h * w, 'N*3*32*32');
  const x = halfActivations ? toHalves(input.slice()) : input;
  const act = simpleCnnForward(spec, params, x, n, alloc, halfActivations);
  const { loss, correct } = softmaxXentForward(act.logits, y, { n, c: spec.classes });
  const grad = simpleCnnBackward(spec, params, x, y, act, alloc);
  return { logits: act.logits, loss, correct, grad };
}
