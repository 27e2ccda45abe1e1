// Loads fixtures/simplecnn_grad.safetensors (PyTorch 2.11, CPU fp32; see test/fixtures/README.md)
// into flat arenas in ModelSpec order, for the reference-op tests and the GPU tests alike:
// parameters, the batch, logits, loss, gradients, the parameters after two optimizer steps
// (after2.<opt>.*), clip_grad_norm_'s outputs, and the hyper-parameters from __metadata__.spec.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getF32, getI32, parseSafetensors, type SafeTensors } from '../../src/checkpoint/safetensors.ts';
import { simpleCnnSpec, type ModelSpec } from '../../src/nn/spec.ts';

export const GRAD_FIXTURE_PATH = fileURLToPath(new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url));

export type OptimizerName = 'sgd' | 'adam' | 'adamw';

/** Hyper-parameters as the fixture's __metadata__.spec states them. */
export interface FixtureHyper {
  readonly sgd: { readonly lr: number; readonly momentum: number };
  readonly adam: {
    readonly lr: number;
    readonly betas: readonly [number, number];
    readonly eps: number;
    readonly weight_decay: number;
  };
  readonly adamw: {
    readonly lr: number;
    readonly betas: readonly [number, number];
    readonly eps: number;
    readonly weight_decay: number;
  };
  readonly clipMaxNorm: number;
}

export interface GradFixture {
  /** SimpleCNN at width 1 (the fixture's model). */
  readonly spec: ModelSpec;
  /** Batch size. */
  readonly n: number;
  readonly metadata: Readonly<Record<string, string>>;
  readonly hyper: FixtureHyper;
  readonly params: Float32Array; // [spec.total] param.*
  readonly x: Float32Array; //      [N, 3, 32, 32] input.x
  readonly y: Int32Array; //        [N] input.y
  readonly logits: Float32Array; // [N, 10] out.logits
  readonly loss: number; //         out.loss
  readonly grads: Float32Array; //  [spec.total] grad.*
  readonly clipTotalNorm: number; // clip.total_norm
  readonly clipGrads: Float32Array; // [spec.total] clip.grad.*
  /** [spec.total] after2.<opt>.*: the parameters after two steps from param.* */
  after2(opt: OptimizerName): Float32Array;
  /** Any F32 tensor by name (a fresh copy). */
  tensor(name: string): Float32Array;
  readonly file: SafeTensors;
}

/** Gathers `<prefix><param name>` tensors into one flat arena in spec order (shapes checked). */
export function flatArena(st: SafeTensors, spec: ModelSpec, prefix: string, source = 'fixture'): Float32Array {
  const out = new Float32Array(spec.total);
  for (const p of spec.params) out.set(getF32(st, prefix + p.name, p.shape, source), p.offset);
  return out;
}

function scalar(st: SafeTensors, name: string, source: string): number {
  const t = getF32(st, name, [1], source);
  return t[0]!;
}

function parseHyper(metadata: Readonly<Record<string, string>>): FixtureHyper {
  const raw = metadata.spec;
  if (raw === undefined) throw new Error('grad fixture: __metadata__.spec is missing');
  const spec = JSON.parse(raw) as {
    clip_max_norm: number;
    optimizers: { sgd: FixtureHyper['sgd']; adam: FixtureHyper['adam']; adamw: FixtureHyper['adamw'] };
  };
  return {
    sgd: spec.optimizers.sgd,
    adam: spec.optimizers.adam,
    adamw: spec.optimizers.adamw,
    clipMaxNorm: spec.clip_max_norm,
  };
}

const cache = new Map<string, GradFixture>();

/** Reads and parses the grad fixture once per process. */
export function loadGradFixture(path = GRAD_FIXTURE_PATH): GradFixture {
  const hit = cache.get(path);
  if (hit) return hit;
  const source = path.split('/').pop() ?? path;
  const file = parseSafetensors(new Uint8Array(readFileSync(path)), source);
  const spec = simpleCnnSpec(1);
  const y = getI32(file, 'input.y', source);
  const n = y.length;
  const after2 = new Map<OptimizerName, Float32Array>();
  const fx: GradFixture = {
    spec,
    n,
    metadata: file.metadata,
    hyper: parseHyper(file.metadata),
    params: flatArena(file, spec, 'param.', source),
    x: getF32(file, 'input.x', [n, ...spec.input], source),
    y,
    logits: getF32(file, 'out.logits', [n, spec.classes], source),
    loss: scalar(file, 'out.loss', source),
    grads: flatArena(file, spec, 'grad.', source),
    clipTotalNorm: scalar(file, 'clip.total_norm', source),
    clipGrads: flatArena(file, spec, 'clip.grad.', source),
    after2(opt) {
      let t = after2.get(opt);
      if (!t) after2.set(opt, (t = flatArena(file, spec, `after2.${opt}.`, source)));
      return t;
    },
    tensor: (name) => getF32(file, name, undefined, source),
    file,
  };
  cache.set(path, fx);
  return fx;
}
