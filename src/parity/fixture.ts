// Reading a PyTorch fixture for `webddp parity`: the safetensors file and the JSON `spec` in its
// metadata (kind 'grad', 'ddp' or 'autocast_fp16'), checked so a wrong or damaged file fails with a clear message.
import { getF32, parseSafetensors, type SafeTensors } from '../checkpoint/safetensors.ts';
import { simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import type { OptimizerConfig } from '../optim/optimizer.ts';
import { readJson } from '../input/json.ts';

export class FixtureError extends Error {
  constructor(source: string, detail: string) {
    super(`${source}: ${detail}`);
    this.name = 'FixtureError';
  }
}

/** grad: one fp32 step and the optimizers; ddp: a DDP run; autocast_fp16: one step under CUDA autocast fp16. */
export type FixtureKind = 'grad' | 'ddp' | 'autocast_fp16';
const KINDS: readonly string[] = ['grad', 'ddp', 'autocast_fp16'] satisfies FixtureKind[];

export interface Fixture {
  readonly source: string;
  readonly st: SafeTensors;
  readonly spec: Record<string, unknown>;
  readonly kind: FixtureKind;
  readonly model: ModelSpec;
}

export function readFixture(bytes: Uint8Array, source: string): Fixture {
  const st = parseSafetensors(bytes, source);
  const raw = st.metadata.spec;
  if (raw === undefined)
    throw new FixtureError(source, 'no __metadata__.spec: this is not a webddp/PyTorch parity fixture');
  const spec = readJson(raw, (issue) => new FixtureError(source, `__metadata__.spec is not JSON (${issue})`));
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    throw new FixtureError(source, '__metadata__.spec is not a JSON object');
  const s = spec as Record<string, unknown>;
  if (typeof s.kind !== 'string' || !KINDS.includes(s.kind))
    throw new FixtureError(
      source,
      `unsupported fixture kind ${JSON.stringify(s.kind)} (expected ${KINDS.map((k) => `"${k}"`).join(', ')})`,
    );
  const kind = s.kind as FixtureKind;
  if (s.model !== undefined && s.model !== 'SimpleCNN')
    throw new FixtureError(source, `unsupported model ${JSON.stringify(s.model)} (only SimpleCNN)`);
  const prefix = kind === 'ddp' ? 'param_init.' : 'param.';
  return { source, st, spec: s, kind, model: inferModel(st, prefix, source) };
}

/** SimpleCNN's width from the fixture's conv1.weight, with every parameter's shape checked. */
function inferModel(st: SafeTensors, prefix: string, source: string): ModelSpec {
  const c1 = st.tensors.get(`${prefix}conv1.weight`)?.shape[0];
  if (c1 === undefined) throw new FixtureError(source, `tensor '${prefix}conv1.weight' is missing`);
  let model: ModelSpec;
  try {
    model = simpleCnnSpec(c1 / 32);
  } catch {
    throw new FixtureError(source, `conv1 has ${c1} channels: not a SimpleCNN width`);
  }
  for (const p of model.params) getF32(st, `${prefix}${p.name}`, p.shape, source);
  return model;
}

/** The flat parameter arena from `<prefix><name>` tensors. */
export function fixtureParams(f: Fixture, prefix: string): Float32Array {
  const flat = new Float32Array(f.model.total);
  for (const p of f.model.params) flat.set(getF32(f.st, `${prefix}${p.name}`, p.shape, f.source), p.offset);
  return flat;
}

function num(v: unknown, what: string, source: string, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new FixtureError(source, `${what} must be a number (got ${JSON.stringify(v)})`);
  return v;
}

/** An optimizer description from a fixture spec ({lr, momentum, betas, eps, weight_decay, ...}). */
export function optimizerFromSpec(name: string, v: unknown, source: string): OptimizerConfig {
  if (name !== 'sgd' && name !== 'adam' && name !== 'adamw')
    throw new FixtureError(source, `unsupported optimizer '${name}' (sgd, adam, adamw)`);
  if (typeof v !== 'object' || v === null) throw new FixtureError(source, `optimizer '${name}' has no settings`);
  const o = v as Record<string, unknown>;
  const betas = o.betas === undefined ? undefined : (o.betas as unknown[]);
  if (betas !== undefined && (!Array.isArray(betas) || betas.length !== 2))
    throw new FixtureError(source, `optimizer '${name}': betas must be [b1, b2]`);
  return {
    name: name,
    lr: num(o.lr, `optimizer '${name}' lr`, source),
    momentum: num(o.momentum, 'momentum', source, 0),
    dampening: num(o.dampening, 'dampening', source, 0),
    nesterov: o.nesterov === true,
    weightDecay: num(o.weight_decay, 'weight_decay', source, name === 'adamw' ? 0.01 : 0),
    ...(betas ? { betas: [num(betas[0], 'betas[0]', source), num(betas[1], 'betas[1]', source)] as const } : {}),
    eps: num(o.eps, 'eps', source, 1e-8),
  };
}
