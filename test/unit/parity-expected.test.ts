// `webddp parity` never passes a check that checks nothing, and reads expected tensors by their
// dtype: fixtures are written here with the project's own safetensors writer. A fixture with no
// expected output fails before any GPU work (run in-process through the CLI dispatcher); F16,
// BF16 and F64 expected tensors are decoded to their values; other dtypes are refused by name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serializeSafetensors, type TensorInput } from '../../src/checkpoint/safetensors.ts';
import { main } from '../../src/cli/main.ts';
import { f16Value as halfToNumber } from '../../src/numeric/f16.ts';
import { compareOutputs, decodeFloats } from '../../src/parity/expected.ts';
import { FixtureError, readFixture } from '../../src/parity/fixture.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { Prng } from '../helpers/mutate.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-parity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const spec = simpleCnnSpec(0.125);

/** A grad (or ddp) fixture: parameters and inputs, plus `extra` tensors (the expected outputs). */
function fixture(kind: 'grad' | 'ddp', extra: Record<string, TensorInput> = {}, meta: Record<string, string> = {}) {
  const prefix = kind === 'grad' ? 'param.' : 'param_init.';
  const tensors: Record<string, TensorInput> = {};
  for (const p of spec.params)
    tensors[`${prefix}${p.name}`] = { dtype: 'F32', shape: p.shape, data: new Float32Array(p.size).fill(0.01) };
  tensors[kind === 'grad' ? 'input.x' : 'data.X'] = {
    dtype: 'F32',
    shape: [2, 3, 32, 32],
    data: new Float32Array(6144),
  };
  tensors[kind === 'grad' ? 'input.y' : 'data.Y'] = { dtype: 'I64', shape: [2], data: new BigInt64Array([1n, 2n]) };
  const s =
    kind === 'grad'
      ? { kind }
      : { kind, world_size: 2, batch_per_rank: 1, epochs: 1, optimizer: { name: 'sgd', lr: 0.1 } };
  return serializeSafetensors({ ...tensors, ...extra }, { spec: JSON.stringify(s), ...meta });
}

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/** 16-bit patterns of F16 values that are exact: 0.5, -2, 65504 (max), 2^-24 (smallest subnormal), 0.1 rounded. */
const HALF = new Uint16Array([0x3800, 0xc000, 0x7bff, 0x0001, 0x2e66]);
const HALF_VALUES = [0.5, -2, 65504, 2 ** -24, 0.0999755859375];

describe('parity: a fixture with nothing to check fails', { timeout: 60_000 }, () => {
  it('grad fixture without expected outputs: non-zero exit, says nothing was checked, no GPU touched', async () => {
    const path = join(dir, 'no-expected-grad.safetensors');
    writeFileSync(path, fixture('grad'));
    const r = await cli('parity', path);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(
      /no-expected-grad\.safetensors: nothing to check: the fixture holds none of the expected outputs/,
    );
    expect(r.err).not.toMatch(/adapter:/);
    expect(r.out).not.toMatch(/parity OK/);
  });

  it('ddp fixture without param_final.* or shards/losses: non-zero exit', async () => {
    const path = join(dir, 'no-expected-ddp.safetensors');
    writeFileSync(path, fixture('ddp'));
    const r = await cli('parity', path);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/nothing to check: .*'ddp' replay \(param_final\.\*, metadata shards \/ losses\)/);
  });
});

describe('parity: expected tensors decoded by dtype', () => {
  it('decodes F16, BF16, F64 and F32 to their values', () => {
    expect(HALF_VALUES.map((_, i) => halfToNumber(HALF[i] ?? 0))).toEqual(HALF_VALUES);
    expect(halfToNumber(0x7c00)).toBe(Infinity);
    expect(halfToNumber(0xfc00)).toBe(-Infinity);
    expect(halfToNumber(0x7e00)).toBeNaN();
    expect(Object.is(halfToNumber(0x8000), -0)).toBe(true);
    const bf = new Uint16Array([0x3f80, 0xc040, 0x3dcd]); // 1, -3, 0.10009765625
    const f64 = new Float64Array([0.1, -1e300]);
    const bytes = fixture('grad', {
      'out.h': { dtype: 'F16', shape: [5], data: HALF },
      'out.b': { dtype: 'BF16', shape: [3], data: bf },
      'out.d': { dtype: 'F64', shape: [2], data: f64 },
      'out.f': { dtype: 'F32', shape: [2], data: Float32Array.of(1.5, -0.25) },
    });
    const f = readFixture(bytes, 'x.safetensors');
    const get = (n: string) => {
      const t = f.st.tensors.get(n);
      if (!t) throw new Error(n);
      return [...decodeFloats(t, n, f.source)];
    };
    expect(get('out.h')).toEqual(HALF_VALUES);
    expect(get('out.b')).toEqual([1, -3, 0.10009765625]);
    expect(get('out.d')).toEqual([0.1, -1e300]);
    expect(get('out.f')).toEqual([1.5, -0.25]);
  });

  it('refuses I32, U8 and F8_E4M3 expected tensors by name', () => {
    for (const [dtype, data] of [
      ['I32', new Int32Array(2)],
      ['U8', new Uint8Array(2)],
      ['F8_E4M3', new Uint8Array(2)],
    ] as const) {
      const f = readFixture(fixture('grad', { 'out.loss': { dtype, shape: [2], data } }), 'y.safetensors');
      expect(() =>
        compareOutputs(f, [{ name: 'out.loss', data: new Float32Array(2), shape: [2], rule: 'strict' }]),
      ).toThrow(
        new FixtureError(
          'y.safetensors',
          `expected tensor 'out.loss' is ${dtype}: parity compares floating-point tensors (F32, F16, BF16 or F64)`,
        ),
      );
    }
  });

  it('compares a replay with F16 expected logits by value: equal passes, off by 1% fails', () => {
    const f = readFixture(fixture('grad', { 'out.logits': { dtype: 'F16', shape: [5], data: HALF } }), 'z.safetensors');
    const same = compareOutputs(f, [
      { name: 'out.logits', data: Float32Array.from(HALF_VALUES), shape: [5], rule: 'strict' },
    ]);
    expect(same.map((r) => [r.name, r.ok, r.main.count])).toEqual([['out.logits', true, 5]]);
    const off = compareOutputs(f, [
      { name: 'out.logits', data: Float32Array.from(HALF_VALUES, (v) => v * 1.01), shape: [5], rule: 'strict' },
    ]);
    expect(off.map((r) => [r.ok, r.main.mismatches])).toEqual([[false, 4]]); // 2^-24 * 1.01 is within atol
    // Outputs the fixture has no expected tensor for are not rows.
    expect(
      compareOutputs(f, [{ name: 'grad.fc2.bias', data: new Float32Array(10), shape: [10], rule: 'strict' }]),
    ).toEqual([]);
  });
});

describe('parity: shapes are compared before values', () => {
  it('an expected tensor of the same bytes in another shape (transposed, flattened, reshaped) fails naming both shapes', () => {
    const r = new Prng(11);
    for (let seed = 0; seed < 40; seed++) {
      const p = r.pick(spec.params);
      const data = Float32Array.from({ length: p.size }, () => r.next());
      // another shape with the same element count: dims permuted, merged or split off a 1
      const dims = [...p.shape];
      const how = r.int(3);
      const other =
        how === 0 && dims.length > 1
          ? [...dims.slice(1), dims[0]!]
          : how === 1 && dims.length > 1
            ? [dims[0]! * dims[1]!, ...dims.slice(2)]
            : [...dims, 1, 1];
      const name = `grad.${p.name}`;
      const f = readFixture(
        fixture('grad', { [name]: { dtype: 'F32', shape: other, data } }),
        `seed-${seed}.safetensors`,
      );
      const [row] = compareOutputs(f, [{ name, data, shape: p.shape, rule: 'strict' }]);
      const same = other.length === p.shape.length && other.every((d, i) => d === p.shape[i]);
      expect(row?.ok, `${name} [${p.shape.join(', ')}] vs [${other.join(', ')}]`).toBe(same);
      if (!same) expect(row?.name).toBe(`${name} (shape [${p.shape.join(', ')}] vs expected [${other.join(', ')}])`);
    }
  });
});
