// PyTorch's expected outputs in a parity fixture, and the comparison of a replay with them.
// An expected tensor is decoded by its dtype (F32, F16, BF16, F64 become numbers; any other dtype
// is refused by name), never reinterpreted as F32 bytes. A fixture that holds none of the outputs
// a replay produces, or a replay that matched none of them, is an error: a check that checks
// nothing must not pass.
import type { SafeTensors, TensorEntry } from '../checkpoint/safetensors.ts';
import { bf16Value } from '../numeric/bf16.ts';
import { f16Value } from '../numeric/f16.ts';
import { FixtureError, type Fixture } from './fixture.ts';
import type { ParityOutput } from './grad.ts';
import { checkTensor, failedRow, sameShape, type ParityRow } from './tolerance.ts';

/** A floating-point tensor's values (F32, F16, BF16 as float32; F64 as float64). */
export function decodeFloats(t: TensorEntry, name: string, source: string): Float32Array | Float64Array {
  const dv = new DataView(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  switch (t.dtype) {
    case 'F32':
      return Float32Array.from({ length: t.data.byteLength / 4 }, (_, i) => dv.getFloat32(4 * i, true));
    case 'F64':
      return Float64Array.from({ length: t.data.byteLength / 8 }, (_, i) => dv.getFloat64(8 * i, true));
    case 'F16':
      return Float32Array.from({ length: t.data.byteLength / 2 }, (_, i) => f16Value(dv.getUint16(2 * i, true)));
    case 'BF16':
      return Float32Array.from({ length: t.data.byteLength / 2 }, (_, i) => bf16Value(dv.getUint16(2 * i, true)));
    default:
      throw new FixtureError(
        source,
        `expected tensor '${name}' is ${t.dtype}: parity compares floating-point tensors (F32, F16, BF16 or F64)`,
      );
  }
}

/** The tensor names a replay of `f` can check (per kind), for the "nothing to check" message. */
function checkableNames(f: Fixture): string[] {
  const params = f.model.params.map((p) => p.name);
  if (f.kind === 'ddp') return params.map((p) => `param_final.${p}`);
  if (f.kind === 'autocast_fp16')
    return ['out.logits', 'out.loss', ...params.map((p) => `grad.${p}`), ...params.map((p) => `after1.sgd.${p}`)];
  const opts = Object.keys(f.spec.optimizers ?? {});
  return [
    'out.logits',
    'out.loss',
    ...params.map((p) => `grad.${p}`),
    ...opts.flatMap((o) => params.map((p) => `after2.${o}.${p}`)),
    ...(f.spec.clip_max_norm !== undefined ? ['clip.total_norm', ...params.map((p) => `clip.grad.${p}`)] : []),
  ];
}

const EXPECTED_OUTPUTS: Readonly<Record<Fixture['kind'], string>> = {
  grad: 'out.logits, out.loss, grad.*, after2.<optimizer>.*, clip.*',
  ddp: 'param_final.*, metadata shards / losses',
  autocast_fp16: 'out.logits, out.loss, grad.*, after1.sgd.*',
};

/** Throws unless the fixture holds at least one expected output a replay would check. */
export function requireExpected(f: Fixture): void {
  const st: SafeTensors = f.st;
  const any =
    checkableNames(f).some((n) => st.tensors.has(n)) ||
    (f.kind === 'ddp' && (st.metadata.shards !== undefined || st.metadata.losses !== undefined));
  if (!any)
    throw new FixtureError(
      f.source,
      `nothing to check: the fixture holds none of the expected outputs of a '${f.kind}' replay (${EXPECTED_OUTPUTS[f.kind]})`,
    );
}

/**
 * One row per replay output that the fixture has an expected tensor for. Shapes are compared
 * before values: a transposed tensor has the same bytes and must not pass.
 */
export function compareOutputs(f: Fixture, outputs: readonly ParityOutput[]): ParityRow[] {
  const rows: ParityRow[] = [];
  for (const o of outputs) {
    const t = f.st.tensors.get(o.name);
    if (!t) continue;
    if (!sameShape(o.shape, t.shape)) {
      const show = (s: readonly (number | bigint)[]) => `[${s.join(', ')}]`;
      rows.push(failedRow(`${o.name} (shape ${show(o.shape)} vs expected ${show(t.shape)})`, o.rule, o.data.length));
      continue;
    }
    rows.push(checkTensor(o.name, o.rule, o.data, decodeFloats(t, o.name, f.source), o.bound));
  }
  return rows;
}
