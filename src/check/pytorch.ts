// The model against the bundled PyTorch fixtures (fixtures/*.safetensors, made by
// test/fixtures/gen_fixtures.py and scripts/make-fixture.py): simplecnn_grad (logits, loss, every
// gradient, two steps of SGD / Adam / AdamW, clip_grad_norm_) on the check's device with its tuning,
// simplecnn_autocast_fp16 (one step under CUDA autocast fp16 against webddp's fp16 step), and ddp_world2 (a
// DistributedDataParallel run on 2 workers: final parameters, each rank's shards and losses). One
// row per tensor, with the fixtures' tolerances; a fixture that yields no comparison is a failure.
import type { Gpu } from '../gpu/device.ts';
import type { Tuning } from '../gpu/tuning.ts';
import { ddpMetadataRows, runDdpFixture } from '../parity/ddp.ts';
import { compareOutputs, requireExpected } from '../parity/expected.ts';
import { readFixture, type Fixture } from '../parity/fixture.ts';
import { runGradFixture } from '../parity/grad.ts';
import { runAutocastFixture } from '../parity/autocast.ts';
import { describeRule, type ParityRow } from '../parity/tolerance.ts';
import type { SpawnWorker } from '../runtime/coordinator.ts';
import type { CheckGroup, CheckRow } from './result.ts';

export const GRAD_FIXTURE = 'simplecnn_grad.safetensors';
export const DDP_FIXTURE = 'ddp_world2.safetensors';
export const AUTOCAST_FIXTURE = 'simplecnn_autocast_fp16.safetensors';

/** Reads a bundled fixture by file name (Node: the package's fixtures/; the browser: fetched). */
export type FixtureReader = (name: string) => Promise<Uint8Array>;

function describeRow(r: ParityRow): string {
  const m = r.main;
  const base = `max abs ${m.maxAbs.toExponential(2)}, max rel ${m.maxRel.toExponential(2)}, ${m.mismatches}/${m.count} out of tolerance`;
  return r.rule === 'adam'
    ? `${base} (rtol 1e-3 atol 1e-4; all <= 5e-3, ${((r.fraction ?? 0) * 100).toFixed(2)}% tight, >= 99.9% needed)`
    : `${base} (${describeRule(r)})`;
}

function toRows(group: CheckGroup, fixture: string, rows: readonly ParityRow[], ms: number): CheckRow[] {
  if (rows.length === 0)
    return [
      { group, name: fixture, status: 'fail', ms, detail: 'nothing was checked: no output had an expected tensor' },
    ];
  const each = ms / rows.length;
  return rows.map((r) => ({
    group,
    name: `${fixture}: ${r.name}`,
    status: r.rule === 'reported' ? 'skip' : r.ok ? 'pass' : 'fail',
    ms: each,
    detail: describeRow(r),
  }));
}

async function load(read: FixtureReader, name: string): Promise<Fixture> {
  const f = readFixture(await read(name), name);
  requireExpected(f);
  return f;
}

function failed(group: CheckGroup, name: string, t0: number, e: unknown): CheckRow[] {
  const detail = e instanceof Error ? e.message : String(e);
  return [{ group, name, status: 'fail', ms: performance.now() - t0, detail }];
}

/** simplecnn_grad on `gpu` with `tuning`: one row per tensor. */
export async function checkModel(gpu: Gpu, tuning: Tuning, read: FixtureReader): Promise<CheckRow[]> {
  const t0 = performance.now();
  try {
    const f = await load(read, GRAD_FIXTURE);
    const outputs = await runGradFixture(gpu, f, undefined, tuning);
    return toRows('model', GRAD_FIXTURE, compareOutputs(f, outputs), performance.now() - t0);
  } catch (e) {
    return failed('model', GRAD_FIXTURE, t0, e);
  }
}

/**
 * simplecnn_autocast_fp16 (one SGD step under PyTorch's CUDA autocast fp16, static loss scale) against
 * webddp's fp16 step on `gpu`: logits, loss, the unscaled gradients and the fp32 master after the
 * step, each within its bound from fp16 rounding (parity/autocast.ts).
 */
export async function checkAutocast(gpu: Gpu, tuning: Tuning, read: FixtureReader): Promise<CheckRow[]> {
  const t0 = performance.now();
  try {
    const f = await load(read, AUTOCAST_FIXTURE);
    if (f.kind !== 'autocast_fp16') throw new Error(`${AUTOCAST_FIXTURE} is a '${f.kind}' fixture`);
    const outputs = await runAutocastFixture(gpu, f, undefined, tuning);
    return toRows('precision', AUTOCAST_FIXTURE, compareOutputs(f, outputs), performance.now() - t0);
  } catch (e) {
    return failed('precision', AUTOCAST_FIXTURE, t0, e);
  }
}

/** ddp_world2 on its world size of workers (each with its own device): one row per tensor. */
export async function checkDdp(spawn: SpawnWorker, read: FixtureReader): Promise<CheckRow[]> {
  const t0 = performance.now();
  try {
    const f = await load(read, DDP_FIXTURE);
    const r = await runDdpFixture(f, spawn);
    const rows = [...compareOutputs(f, r.outputs), ...ddpMetadataRows(f, r)];
    return toRows('ddp', DDP_FIXTURE, rows, performance.now() - t0);
  } catch (e) {
    return failed('ddp', DDP_FIXTURE, t0, e);
  }
}
