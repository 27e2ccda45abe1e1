// Replays a `kind: autocast_fp16` fixture (scripts/make-fixture.py autocast: one SGD step of
// SimpleCNN under PyTorch's CUDA autocast fp16 with a static loss scale, fp32 master weights) with
// webddp's --fp16 step on one worker, as the DDP runner takes it: the parameters as halves and the
// master from them, the loss gradient times loss_scale / N, the backward, the gradients packed into
// halves, checked for inf/NaN and unscaled into float32, then the optimizer on the master. Returns
// the logits, the loss, the unscaled float32 gradients and the master after the step, each with
// the bound the f16 rule compares it with (below; docs/precision.md derives it). The convolutions'
// gradients and updated weights are compared and shown, not judged (rule 'reported'): each conv
// output goes through ReLU and a 2x2 max-pool, whose backward sends a window's gradient to one
// position, and fp16 rounding makes near-ties common (in the fixture's batch 26 exact ties and 65
// windows whose two largest values are within one ulp), so conv outputs that differ by float32
// rounding (cuDNN's algorithms against webddp's sums) route some gradient elsewhere: in a float64
// model of the step, moving the conv outputs by 2^-22 of their sums of |terms| moves conv2's weight
// gradient by 31 u x its largest |value|, by 2^-15 by 100 u. PyTorch's step differs from that
// model by 19-82 u in the conv layers, webddp's by at most 1.3 u.
import { getI32, getF32 } from '../checkpoint/safetensors.ts';
import type { Gpu } from '../gpu/device.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { Tuning } from '../gpu/tuning.ts';
import type { ModelSpec } from '../nn/spec.ts';
import { HalfGradients } from '../train/half-grads.ts';
import { Trainer } from '../train/trainer.ts';
import { decodeFloats } from './expected.ts';
import { FixtureError, fixtureParams, optimizerFromSpec, type Fixture } from './fixture.ts';
import type { ParityOutput } from './grad.ts';

/** fp16's unit roundoff: round to nearest moves a value by at most 2^-11 of itself. */
export const F16_U = 2 ** -11;

/**
 * How many units of F16_U times the tensor's largest |value| autocast's and webddp's results may
 * differ by, per layer (first order: each rounding of an intermediate moves the result by at most
 * u times its scale, passed on with gain 1). Three sources:
 *   * roundings both sides make (the two convolution outputs stored as halves, and the gradient's
 *     own rounding to fp16 before it is unscaled): from slightly different float32 sums they may
 *     land one ulp apart, 2u each;
 *   * roundings only autocast makes (webddp keeps them float32): fc1's output and the logits in the
 *     forward, the gradients of the logits, of fc2's input, of fc1's input and of conv2's input in
 *     the backward, u each, counted for the tensors downstream of them;
 *   * float32 sums, in a different order on each side: K terms at most K 2^-24 each, so K 2^-23 =
 *     (K / 2^12) u for the longest sum K on the tensor's path.
 */
export function autocastMultiples(spec: ModelSpec, batch: number): Record<string, number> {
  const [, h, w] = spec.input;
  const fc1Sum = spec.c2 * (h / 4) * (w / 4);
  const sums = (...k: number[]) => Math.max(fc1Sum, ...k) / 2 ** 12;
  // shared: conv1 and conv2 outputs (2u each); autocast only: fc1 output, logits
  const forward = 2 * 2 + 2;
  const grad = (autocastBackward: number, ...k: number[]) => forward + 2 + autocastBackward + sums(...k);
  return {
    'out.logits': forward + sums(spec.hidden),
    fc2: grad(1, batch),
    fc1: grad(2, batch),
    conv2: grad(3, batch * (h / 2) * (w / 2), spec.c2 * 9),
    conv1: grad(4, batch * h * w),
  };
}

/** SimpleCNN's layers whose outputs go through ReLU and max-pool (their gradients are reported, not judged). */
const POOLED: ReadonlySet<string> = new Set(['conv1', 'conv2']);

/** The largest |value| of an expected tensor. */
function maxAbs(f: Fixture, name: string): number {
  const t = f.st.tensors.get(name);
  if (!t) throw new FixtureError(f.source, `tensor '${name}' is missing`);
  let m = 0;
  for (const v of decodeFloats(t, name, f.source)) m = Math.max(m, Math.abs(v));
  return m;
}

export async function runAutocastFixture(
  gpu: Gpu,
  f: Fixture,
  onProgress?: (what: string) => void,
  tuning?: Tuning,
): Promise<ParityOutput[]> {
  const x = getF32(f.st, 'input.x', undefined, f.source);
  const labels = getI32(f.st, 'input.y', f.source);
  const n = labels.length;
  if (x.length !== n * 3072)
    throw new FixtureError(f.source, `input.x holds ${x.length} floats, expected ${n} x 3x32x32`);
  const scale = f.spec.loss_scale;
  if (typeof scale !== 'number' || !(scale > 0) || !Number.isFinite(scale))
    throw new FixtureError(f.source, `loss_scale must be a positive number (got ${JSON.stringify(scale)})`);
  if (f.spec.steps !== 1) throw new FixtureError(f.source, `steps must be 1 (got ${JSON.stringify(f.spec.steps)})`);
  const o = f.spec.optimizer as Record<string, unknown> | undefined;
  if (o?.name !== 'sgd') throw new FixtureError(f.source, `optimizer must be {"name": "sgd", ...}`);
  const config = optimizerFromSpec('sgd', o, f.source);
  if (config.weightDecay !== 0) throw new FixtureError(f.source, 'the autocast replay takes SGD without weight decay');

  onProgress?.('one fp16 step');
  const t = await Trainer.create(gpu, {
    spec: f.model,
    maxBatch: n,
    optimizer: config,
    fp16: true,
    ...(tuning ? { tuning } : {}),
  });
  const half = await HalfGradients.create(gpu, t.grads, [{ offset: 0, count: f.model.total }], 'f16');
  let logits: Float32Array;
  let loss: number;
  let grads: Float32Array;
  let after: Float32Array;
  try {
    if (!t.master) throw new Error('an fp16 trainer on one worker has an fp32 master');
    t.setParams(fixtureParams(f, 'param.'));
    const pass = await t.forward({ x, labels }, scale / n, 'parity.autocast.forward_backward');
    pass.backward({ after: (rec) => half.recordPack(rec, 0) });
    loss = (await pass.stats()).loss;
    const unscale = new Recorder(gpu, 'parity.autocast.unscale');
    half.recordUnscale(unscale, scale);
    unscale.submit();
    if (await half.readOverflow())
      throw new FixtureError(f.source, `the gradients times loss_scale ${scale} overflowed fp16 in webddp's step`);
    logits = await t.readLogits(n);
    grads = await t.readGrads();
    const update = new Recorder(gpu, 'parity.autocast.update');
    t.recordUpdate(update);
    update.submit();
    after = await t.master.read();
  } finally {
    half.destroy();
    t.destroy();
  }

  const m = autocastMultiples(f.model, n);
  const logitsBound = (m['out.logits'] ?? NaN) * F16_U * maxAbs(f, 'out.logits');
  const out: ParityOutput[] = [
    { name: 'out.logits', data: logits, shape: [n, f.model.classes], rule: 'f16', bound: logitsBound },
    // loss = logsumexp(z) - z_y moves by at most twice the logits' largest change
    { name: 'out.loss', data: Float32Array.of(loss), shape: [1], rule: 'f16', bound: 2 * logitsBound },
  ];
  for (const p of f.model.params) {
    const layer = p.name.split('.')[0] ?? '';
    const gradBound = (m[layer] ?? NaN) * F16_U * maxAbs(f, `grad.${p.name}`);
    const slice = (a: Float32Array) => a.slice(p.offset, p.offset + p.size);
    const rule = POOLED.has(layer) ? 'reported' : 'f16';
    out.push({ name: `grad.${p.name}`, data: slice(grads), shape: p.shape, rule, bound: gradBound });
    // w - lr g in float32 on each side: lr times the gradients' bound, and one float32 rounding each
    out.push({
      name: `after1.sgd.${p.name}`,
      data: slice(after),
      shape: p.shape,
      rule,
      bound: config.lr * gradBound + 2 ** -23 * maxAbs(f, `after1.sgd.${p.name}`),
    });
  }
  return out;
}
