// SimpleCNN on the GPU: the layer list, the activation and gradient buffers (allocated once for
// the largest batch), and a StepPlan per batch size: the prepared Ops of the input normalisation,
// forward, loss and backward. Backward is split into segments, one per layer, each naming the
// parameters whose gradients are complete after it (DDP starts a bucket's all-reduce there).
import type { ParamStorage } from '../gpu/half-params.ts';
import { CIFAR10_MEAN, CIFAR10_STD } from '../data/normalize.ts';
import { storageBuffer } from '../gpu/buffers.ts';
import type { Gpu } from '../gpu/device.ts';
import { halfBuffer, halvesOf } from '../gpu/half-acts.ts';
import { grid1d, makeOp, type Op } from '../gpu/op.ts';
import type { Tuning } from '../gpu/tuning.ts';
import { Conv2dLayer } from './layers/conv2d.ts';
import { LinearLayer } from './layers/linear.ts';
import { MaxPool2dLayer } from './layers/maxpool2d.ts';
import { layerBackward, numel, type BackwardIO, type BuildContext, type Layer } from './layer.ts';
import { lossBackward, lossForward } from './loss.ts';
import { paramByName, type ModelSpec, type ParamSpec } from './spec.ts';

/**
 * The Op that turns `batch` images of uint8 `bytes` into normalised float input `x` (the DDP
 * tutorial's ToTensor + Normalize with CIFAR-10's mean and std; data/normalize.ts is its CPU oracle).
 */
export async function normalizeOp(
  gpu: Gpu,
  spec: ModelSpec,
  label: string,
  io: { bytes: GPUBuffer; x: GPUBuffer },
  batch: number,
): Promise<Op> {
  const count = batch * numel(spec.input);
  const kn = await gpu.kernels.get('normalize_input', {}, 'f32', halvesOf(io));
  return makeOp(
    gpu,
    kn,
    label,
    {
      count,
      c: spec.input[0],
      hw: spec.input[1] * spec.input[2],
      pad: 0,
      mean: [...CIFAR10_MEAN, 0],
      stdev: [...CIFAR10_STD, 1],
    },
    io,
    grid1d(Math.ceil(count / 4), kn.overrides.WG ?? 64),
  );
}

export interface BackwardSegment {
  readonly layer: string;
  readonly ops: readonly Op[];
  readonly ready: readonly ParamSpec[];
  /** The buffers the layer's backward reads and writes (ZeRO builds its own pieces of large layers on them). */
  readonly io: BackwardIO;
}

/** One layer's forward: its Ops and the buffers they read and write. */
export interface ForwardSegment {
  readonly layer: string;
  readonly ops: readonly Op[];
  readonly x: GPUBuffer;
  readonly y: GPUBuffer;
}

export interface StepPlan {
  readonly batch: number;
  /** uint8 input words -> normalised float input (only when the batch arrives as bytes). */
  readonly normalize: Op;
  readonly forward: readonly Op[];
  /** `forward`, layer by layer (ZeRO-3 gathers each layer's parameters before its forward). */
  readonly forwardLayers: readonly ForwardSegment[];
  readonly lossForward: Op;
  readonly lossBackward: Op<'softmax_xent_backward'>;
  readonly backward: readonly BackwardSegment[];
}

export function simpleCnnLayers(spec: ModelSpec): Layer[] {
  const p = (n: string) => paramByName(spec, n);
  return [
    new Conv2dLayer('conv1', p('conv1.weight'), p('conv1.bias'), 32, 32, true),
    new MaxPool2dLayer('pool1', spec.c1, 32, 32, true),
    new Conv2dLayer('conv2', p('conv2.weight'), p('conv2.bias'), 16, 16, true),
    new MaxPool2dLayer('pool2', spec.c2, 16, 16, true),
    new LinearLayer('fc1', p('fc1.weight'), p('fc1.bias'), true, false),
    new LinearLayer('fc2', p('fc2.weight'), p('fc2.bias'), false, true),
  ];
}

/**
 * Whether a layer's output is stored as packed halves in fp16 runs: the convolutions' and pools'
 * (with the input, 99.8% of the activations the backward reads); fc1's and the logits (138 values a
 * sample) stay float32, so the loss is computed on float32 logits.
 */
function halfOutput(l: Layer): boolean {
  return l instanceof Conv2dLayer || l instanceof MaxPool2dLayer;
}

export class Model {
  readonly layers: Layer[];
  /** Normalised input [maxBatch, 3, 32, 32]: float32, or packed halves with halfActivations. */
  readonly x: GPUBuffer;
  /** uint8 input, four pixels per word [maxBatch * 3072 / 4]. */
  readonly bytes: GPUBuffer;
  readonly labels: GPUBuffer;
  /** Output of each layer (packed halves where halfOutput, with halfActivations); the last is the logits [maxBatch, 10]. */
  readonly acts: GPUBuffer[];
  readonly dlogits: GPUBuffer;
  /** Stats slots of 3 floats: mean loss, correct, loss sum. */
  readonly stats: GPUBuffer;
  private readonly gradBuffers: [GPUBuffer, GPUBuffer];
  private readonly ctx: BuildContext;
  private readonly plans = new Map<number, Promise<StepPlan>>();

  /**
   * `grads` receives the parameter gradients at `gradOffset(p)` (default: the arena offset, i.e.
   * `grads` is a full gradient arena); `params` holds them at `paramOffset(p)` (default likewise).
   */
  constructor(
    readonly gpu: Gpu,
    readonly spec: ModelSpec,
    readonly maxBatch: number,
    params: GPUBuffer,
    grads: GPUBuffer,
    /** The kernels' choices on this device (ranks sharing a device build their batched step with them). */
    readonly tuning: Tuning,
    gradOffset: (p: ParamSpec) => number = (p) => p.offset,
    paramOffset: (p: ParamSpec) => number = (p) => p.offset,
    /** How `params` holds the parameters: float32, or packed fp16 / bfloat16 halves (mixed precision). */
    paramStorage: ParamStorage = 'f32',
    /** The input and the conv and pool outputs are stored as packed halves (fp16 mixed precision; gpu/half-acts.ts). */
    readonly halfActivations = false,
  ) {
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`batch size must be a positive integer (got ${maxBatch})`);
    this.layers = simpleCnnLayers(spec);
    const B = maxBatch;
    const f32 = (label: string, n: number) => storageBuffer(gpu, label, n * 4, 'activations');
    const f16 = (label: string, n: number) => halfBuffer(gpu, label, n, 'activations');
    this.x = (halfActivations ? f16 : f32)('input.x', B * numel(spec.input));
    this.bytes = storageBuffer(gpu, 'input.bytes', B * numel(spec.input), 'activations');
    this.labels = storageBuffer(gpu, 'input.labels', B * 4, 'activations');
    this.acts = this.layers.map((l) =>
      (halfActivations && halfOutput(l) ? f16 : f32)(`${l.name}.out`, B * numel(l.outShape)),
    );
    const maxGrad = Math.max(...this.layers.map((l) => numel(l.inShape)));
    this.gradBuffers = [f32('grad_act.0', B * maxGrad), f32('grad_act.1', B * maxGrad)];
    this.dlogits = f32('loss.dlogits', B * spec.classes);
    this.stats = storageBuffer(gpu, 'loss.stats', 64, 'other');
    const ws = Math.max(4, ...this.layers.map((l) => l.workspaceBytes(B, tuning)));
    this.ctx = {
      gpu,
      params,
      grads,
      tuning,
      gradOffset,
      paramOffset,
      paramStorage,
      workspace: storageBuffer(gpu, 'workspace', ws, 'activations'),
    };
  }

  get logits(): GPUBuffer {
    const l = this.acts[this.acts.length - 1];
    if (!l) throw new Error('model has no layers');
    return l;
  }

  /** The prepared Ops for `batch` samples (<= maxBatch), built once per batch size. */
  plan(batch: number): Promise<StepPlan> {
    if (!Number.isInteger(batch) || batch < 1 || batch > this.maxBatch) {
      return Promise.reject(new RangeError(`batch ${batch} is outside 1..${this.maxBatch}`));
    }
    let p = this.plans.get(batch);
    if (!p) {
      p = this.build(batch);
      this.plans.set(batch, p);
    }
    return p;
  }

  private async build(batch: number): Promise<StepPlan> {
    const { gpu, spec } = this;
    const normalize = await normalizeOp(gpu, spec, 'input.normalize', { bytes: this.bytes, x: this.x }, batch);
    const forwardLayers: ForwardSegment[] = [];
    let input = this.x;
    for (const [i, layer] of this.layers.entries()) {
      const out = this.acts[i] ?? input;
      forwardLayers.push({
        layer: layer.name,
        ops: await layer.forward(this.ctx, input, out, batch),
        x: input,
        y: out,
      });
      input = out;
    }
    const forward = forwardLayers.flatMap((s) => s.ops);
    const lb = { logits: this.logits, labels: this.labels, stats: this.stats, dlogits: this.dlogits };
    const lf = await lossForward(gpu, lb, batch, spec.classes);
    const lbw = await lossBackward(gpu, lb, batch, spec.classes);
    const backward: BackwardSegment[] = [];
    let dy = this.dlogits;
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i];
      if (!layer) continue;
      const dx = i === 0 ? null : (this.gradBuffers[i % 2] ?? null);
      const x = i === 0 ? this.x : (this.acts[i - 1] ?? this.x);
      const y = this.acts[i] ?? this.x;
      const io = { x, y, dy, dx };
      backward.push({
        layer: layer.name,
        ops: await layerBackward(layer, this.ctx, io, batch),
        ready: layer.params,
        io,
      });
      if (dx) dy = dx;
    }
    return { batch, normalize, forward, forwardLayers, lossForward: lf, lossBackward: lbw, backward };
  }

  destroy(): void {
    for (const p of this.plans.values()) {
      void p.then(
        (plan) => {
          for (const op of [
            plan.normalize,
            ...plan.forward,
            plan.lossForward,
            plan.lossBackward,
            ...plan.backward.flatMap((s) => s.ops),
          ])
            op.destroy();
        },
        () => undefined,
      );
    }
    const m = this.gpu.memory;
    for (const b of [
      this.x,
      this.bytes,
      this.labels,
      ...this.acts,
      ...this.gradBuffers,
      this.dlogits,
      this.stats,
      this.ctx.workspace,
    ])
      m.destroy(b);
  }
}
