// The batched step's buffers and prepared dispatches (rank-batch.ts): every rank's rows of the
// input, each layer's output and the input gradients, and the plan for a number of rows per rank:
// each layer's forward and input gradient over all rows, each rank's loss over its own rows (bound
// as byte ranges), and every rank's parameter gradients over its own rows into its slice of the
// sum's gathered buffer (device-reduce.ts; Layer.backwardWeight with RankRows).
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Op } from '../gpu/op.ts';
import { numel, type BuildContext } from '../nn/layer.ts';
import { lossBackward, lossForward } from '../nn/loss.ts';
import { normalizeOp, simpleCnnLayers } from '../nn/model.ts';
import type { ModelSpec } from '../nn/spec.ts';
import type { SumOp } from './device-reduce.ts';
import type { Trainer } from './trainer.ts';

/** Every rank's rows: the input, each layer's output and the two input-gradient buffers. */
export interface Rows {
  readonly gpu: Gpu;
  readonly spec: ModelSpec;
  /** Rows per rank the buffers hold. */
  readonly maxRows: number;
  readonly bytes: GPUBuffer;
  readonly x: GPUBuffer;
  readonly labels: GPUBuffer;
  readonly halfActivations: false;
  readonly acts: readonly GPUBuffer[];
  readonly dlogits: GPUBuffer;
  readonly grad: readonly [GPUBuffer, GPUBuffer];
}

/** A layer's backward in the batched step: the input gradient over all rows, every rank's parameter gradients. */
export interface BatchedSegment {
  readonly layer: string;
  readonly input: readonly Op[];
  readonly weight: readonly Op[];
}

/** The batched step's prepared dispatches for `rows` rows per rank and these ranks' trainers. */
export interface BatchedPlan {
  readonly rows: number;
  readonly trainers: readonly Trainer[];
  /** The sum's gathered buffer the ranks' parameter gradients go into, rank r's from r * count on. */
  readonly gathered: GPUBuffer;
  readonly normalize: Op;
  readonly forward: readonly { readonly layer: string; readonly ops: readonly Op[] }[];
  readonly lossForward: readonly Op[];
  readonly lossBackward: Op<'softmax_xent_backward'>;
  readonly backward: readonly BatchedSegment[];
  readonly workspace: GPUBuffer;
  readonly gpu: Gpu;
  scale: number;
}

/** Buffers for every rank's rows, as many rows per rank as `trainer`'s model holds. */
export function allocateRows(trainer: Trainer, world: number): Rows {
  const { model } = trainer;
  const gpu = trainer.gpu.view('colocated.rows');
  const spec = model.spec;
  const n = world * model.maxBatch;
  const f32 = (label: string, count: number) => storageBuffer(gpu, `colocated.${label}`, count * 4, 'activations');
  const maxGrad = Math.max(...model.layers.map((l) => numel(l.inShape)));
  return {
    gpu,
    spec,
    maxRows: model.maxBatch,
    bytes: storageBuffer(gpu, 'colocated.input.bytes', n * numel(spec.input), 'activations'),
    x: f32('input.x', n * numel(spec.input)),
    labels: f32('input.labels', n),
    halfActivations: false,
    acts: model.layers.map((l) => f32(`${l.name}.out`, n * numel(l.outShape))),
    dlogits: f32('loss.dlogits', n * spec.classes),
    grad: [f32('grad_act.0', n * maxGrad), f32('grad_act.1', n * maxGrad)],
  };
}

export async function buildPlan(b: Rows, rows: number, trainers: readonly Trainer[], sum: SumOp): Promise<BatchedPlan> {
  const [first] = trainers;
  if (!first) throw new Error('colocated step: no ranks');
  const world = trainers.length;
  const { gpu, spec } = b;
  const tuning = first.model.tuning;
  gpu.kernels.tuning = tuning.kernels;
  const layers = simpleCnnLayers(spec);
  const all = world * rows;
  // each layer's forward over every rank's rows, its parameter gradients over one rank's
  const wsBytes = Math.max(4, ...layers.map((l) => l.workspaceBytes(all, tuning, rows)));
  const workspace = storageBuffer(gpu, `colocated.workspace.${rows}`, wsBytes, 'activations');
  const ctx: BuildContext = {
    gpu,
    params: first.params,
    paramOffset: (p) => p.offset,
    paramStorage: 'f32',
    grads: first.grads,
    gradOffset: first.gradOffset,
    tuning,
    workspace,
  };
  const normalize = await normalizeOp(gpu, spec, 'colocated.normalize', { bytes: b.bytes, x: b.x }, all);
  const forward: { layer: string; ops: Op[] }[] = [];
  let input: GPUBuffer = b.x;
  for (const [i, layer] of layers.entries()) {
    const out = b.acts[i];
    if (!out) throw new Error(`colocated step: no output rows for ${layer.name}`);
    forward.push({ layer: layer.name, ops: await layer.forward(ctx, input, out, all, rows) });
    input = out;
  }
  const logits = input;
  const loss = (stats: GPUBuffer) => ({ logits, labels: b.labels, stats, dlogits: b.dlogits });
  const lossF = await Promise.all(
    trainers.map((t, r) => lossForward(gpu, loss(t.model.stats), rows, spec.classes, 0, r * rows)),
  );
  const lossB = await lossBackward(gpu, loss(first.model.stats), all, spec.classes, 1 / rows);
  const backward: BatchedSegment[] = [];
  let dy: GPUBuffer = b.dlogits;
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i];
    if (!layer) continue;
    const dx = i === 0 ? null : b.grad[i % 2];
    const x = i === 0 ? b.x : b.acts[i - 1];
    const y = b.acts[i];
    if (!x || !y || dx === undefined) throw new Error(`colocated step: no rows for ${layer.name}`);
    const input = await layer.backwardInput(ctx, { x, y, dy, dx }, all);
    // every rank's parameter gradients, over its own rows, into its slice of the gathered buffer
    const weight = await layer.backwardWeight({ ...ctx, grads: sum.gathered }, { x, y, dy, dx: null }, all, {
      count: world,
      gradStride: sum.count,
    });
    backward.push({ layer: layer.name, input, weight });
    if (dx) dy = dx;
  }
  return {
    rows,
    trainers,
    gathered: sum.gathered,
    normalize,
    forward,
    lossForward: lossF,
    lossBackward: lossB,
    backward,
    workspace,
    gpu,
    scale: 1 / rows,
  };
}

export function destroyPlan(p: BatchedPlan): void {
  const ops: Op[] = [
    p.normalize,
    ...p.forward.flatMap((l) => l.ops),
    ...p.lossForward,
    p.lossBackward,
    ...p.backward.flatMap((s) => [...s.input, ...s.weight]),
  ];
  for (const op of ops) op.destroy();
  p.gpu.memory.destroy(p.workspace);
}
