// Mean softmax cross-entropy (F.cross_entropy, reduction='mean'): forward (loss, correct count,
// loss sum into a stats buffer) and backward (dlogits = (softmax - onehot) * scale) side by side.
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Gpu } from '../gpu/device.ts';

export interface LossBuffers {
  readonly logits: GPUBuffer; // [N, C]
  readonly labels: GPUBuffer; // [N] i32
  readonly stats: GPUBuffer; // [3 * slots]: mean loss, correct, loss sum
  readonly dlogits: GPUBuffer; // [N, C]
}

// logits [N, C], labels [N] from row `row0` -> stats[slot*3 ..] = [mean loss, #correct, loss sum]
export async function lossForward(
  gpu: Gpu,
  b: LossBuffers,
  batch: number,
  classes: number,
  slot = 0,
  row0 = 0,
): Promise<Op> {
  const k = await gpu.kernels.get('softmax_xent_forward');
  return makeOp(
    gpu,
    k,
    'loss.forward',
    { n: batch, c: classes, out_off: slot * 3, row0 },
    { logits: b.logits, labels: b.labels, stats: b.stats },
    [1, 1, 1],
  );
}

// logits [N, C], labels [N] -> dlogits [N, C] = (softmax - onehot) * scale; scale = 1/N by default
export async function lossBackward(
  gpu: Gpu,
  b: LossBuffers,
  batch: number,
  classes: number,
  scale = 1 / batch,
): Promise<Op<'softmax_xent_backward'>> {
  const k = await gpu.kernels.get('softmax_xent_backward');
  return makeOp(
    gpu,
    k,
    'loss.backward',
    { n: batch, c: classes, scale },
    { logits: b.logits, labels: b.labels, dz: b.dlogits },
    grid1d(batch * classes, k.overrides.WG ?? 64),
  );
}
