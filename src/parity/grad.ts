// Replays a `kind: grad` fixture on the GPU: logits, loss and every gradient of one
// forward/backward; two optimizer steps on the same batch for each optimizer the spec lists;
// clip_grad_norm_ when the spec gives clip_max_norm. Returns tensors under the fixture's names.
// `tuning` overrides the adapter's (webddp check --tuning).
import { getF32, getI32 } from '../checkpoint/safetensors.ts';
import type { Gpu } from '../gpu/device.ts';
import type { Tuning } from '../gpu/tuning.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { OptimizerConfig } from '../optim/optimizer.ts';
import type { Batch } from '../data/batch.ts';
import { Trainer } from '../train/trainer.ts';
import { FixtureError, fixtureParams, optimizerFromSpec, type Fixture } from './fixture.ts';
import type { RuleName } from './tolerance.ts';

export interface ParityOutput {
  readonly name: string;
  readonly data: Float32Array;
  readonly shape: readonly number[];
  readonly rule: RuleName;
  /** The f16 rule's bound on |a - b| (autocast.ts derives it). */
  readonly bound?: number;
}

export async function runGradFixture(
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
  const batch: Batch = { x, labels };
  const params = fixtureParams(f, 'param.');
  const out: ParityOutput[] = [];
  const perParam = (prefix: string, flat: Float32Array, rule: RuleName) => {
    for (const p of f.model.params)
      out.push({ name: `${prefix}${p.name}`, data: flat.slice(p.offset, p.offset + p.size), shape: p.shape, rule });
  };
  const make = (optimizer: OptimizerConfig, clip?: number) =>
    Trainer.create(gpu, {
      spec: f.model,
      maxBatch: n,
      optimizer,
      ...(clip ? { clipGradNorm: clip } : {}),
      ...(tuning ? { tuning } : {}),
    });

  onProgress?.('forward and backward');
  const t = await make({ name: 'sgd', lr: 0 });
  try {
    t.setParams(params);
    const r = await t.step(batch, { update: false });
    out.push({ name: 'out.logits', data: await t.readLogits(n), shape: [n, f.model.classes], rule: 'strict' });
    out.push({ name: 'out.loss', data: Float32Array.of(r.loss), shape: [1], rule: 'strict' });
    perParam('grad.', await t.readGrads(), 'strict');
  } finally {
    t.destroy();
  }

  const opts = f.spec.optimizers;
  if (opts !== undefined && (typeof opts !== 'object' || opts === null))
    throw new FixtureError(f.source, 'spec.optimizers must be an object');
  for (const [name, settings] of Object.entries((opts ?? {}) as Record<string, unknown>)) {
    if (!f.st.tensors.has(`after2.${name}.${f.model.params[0]?.name ?? ''}`)) continue;
    onProgress?.(`two ${name} steps`);
    const config = optimizerFromSpec(name, settings, f.source);
    const o = await make(config);
    try {
      o.setParams(params);
      await o.step(batch);
      await o.step(batch);
      perParam(`after2.${name}.`, await o.readParams(), config.name === 'sgd' ? 'strict' : 'adam');
    } finally {
      o.destroy();
    }
  }

  const maxNorm = f.spec.clip_max_norm;
  if (maxNorm !== undefined) {
    if (typeof maxNorm !== 'number' || !(maxNorm > 0))
      throw new FixtureError(f.source, `clip_max_norm must be a positive number (got ${JSON.stringify(maxNorm)})`);
    onProgress?.(`clip_grad_norm_(max_norm=${maxNorm})`);
    const c = await make({ name: 'sgd', lr: 0 }, maxNorm);
    try {
      c.setParams(params);
      const plan = await c.upload(batch);
      const rec = new Recorder(gpu, 'parity.clip');
      c.recordForward(rec, plan, false);
      c.recordBackward(rec, plan);
      c.clipper?.record(rec);
      const r = await c.finish(rec, n);
      out.push({ name: 'clip.total_norm', data: Float32Array.of(r.gradNorm ?? NaN), shape: [1], rule: 'strict' });
      perParam('clip.grad.', await c.readGrads(), 'strict');
    } finally {
      c.destroy();
    }
  }
  return out;
}
