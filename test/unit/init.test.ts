// Init bit for bit: initSimpleCnn vs `torch.manual_seed(0); SimpleCNN()` (param.* of
// simplecnn_grad.safetensors, torch 2.11), float32 goldens torch 2.11 printed,
// and init_golden.json (torch 1.13, gen_init_golden.py) for more seeds and widths.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getF32, parseSafetensors } from '../../src/checkpoint/safetensors.ts';
import { CpuGenerator } from '../../src/random/generator.ts';
import { fmaF32, uniformF32 } from '../../src/random/uniform.ts';
import { biasBound, initSimpleCnn, kaimingUniformBound, resetParameters } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

interface TensorGolden {
  shape: number[];
  head: string[];
  tail: string[];
  sha256: string;
}
interface InitGolden {
  torch: string;
  models: { seed: number; width: number; params: Record<string, TensorGolden> }[];
  modules: {
    linear_4_3: { weight: string[]; bias: string[] };
    conv2d_3_2_3: { weight: string[]; bias: string[] };
    rand_5: string[];
  };
  uniform_ranges: {
    seed: number;
    n: number;
    from: number;
    to: number;
    head: string[];
    tail: string[];
    sha256: string;
  }[];
  fma_ties: { seed: number; index: number; from: number; to: number; value: string }[];
}

const fixtureUrl = (f: string) => new URL(`../fixtures/${f}`, import.meta.url);
const golden = JSON.parse(readFileSync(fixtureUrl('init_golden.json'), 'utf8')) as InitGolden;

const hex = (v: Float32Array): string[] =>
  Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length), (u) => u.toString(16).padStart(8, '0'));
const f32Hex = (x: number): string => hex(Float32Array.of(x))[0] ?? '';

/** The first index where the bit patterns differ, as a readable message, or null. */
function firstMismatch(name: string, got: Float32Array, want: Float32Array): string | null {
  if (got.length !== want.length) return `${name}: ${got.length} values, expected ${want.length}`;
  const a = new Uint32Array(got.buffer, got.byteOffset, got.length);
  const b = new Uint32Array(want.buffer, want.byteOffset, want.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i])
      return `${name}[${i}]: got ${got[i]} (0x${hex(got.subarray(i, i + 1))[0]}), expected ${want[i]} (0x${hex(want.subarray(i, i + 1))[0]})`;
  }
  return null;
}

function sha256F32(v: Float32Array): string {
  return createHash('sha256')
    .update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))
    .digest('hex');
}

describe('initSimpleCnn vs torch 2.11 (simplecnn_grad.safetensors param.*, seed 0, width 1)', () => {
  const st = parseSafetensors(
    new Uint8Array(readFileSync(new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url))),
    'simplecnn_grad.safetensors',
  );
  const spec = simpleCnnSpec(1);
  const arena = initSimpleCnn(spec, 0);

  it.each(spec.params.map((p) => [p.name, p] as const))('%s is bit-identical', (name, p) => {
    const want = getF32(st, `param.${name}`, p.shape);
    expect(firstMismatch(name, arena.subarray(p.offset, p.offset + p.size), want)).toBeNull();
  });

  it('fills the whole arena (545,098 parameters) and bigint seeds give the same result', () => {
    expect(arena.length).toBe(545_098);
    expect(firstMismatch('arena', initSimpleCnn(spec, 0n), arena)).toBeNull();
  });

  it('reads the same tensors from a Node Buffer (whose slice() is a view of the whole file)', () => {
    const fromBuffer = parseSafetensors(
      readFileSync(new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url)),
      'simplecnn_grad.safetensors',
    );
    for (const p of spec.params) {
      const want = getF32(st, `param.${p.name}`, p.shape);
      expect(firstMismatch(p.name, getF32(fromBuffer, `param.${p.name}`, p.shape), want)).toBeNull();
    }
  });
});

describe('float32 goldens (torch 2.11)', () => {
  it('torch.manual_seed(0); torch.rand(5)', () => {
    expect(hex(uniformF32(new CpuGenerator(0), 5))).toEqual([
      '3efe1558',
      '3f44aa2f',
      '3db533a8',
      '3e073300',
      '3e9d6686',
    ]);
  });

  it('torch.manual_seed(0); nn.Linear(4, 3)', () => {
    const g = new CpuGenerator(0);
    const w = new Float32Array(12);
    const b = new Float32Array(3);
    resetParameters(g, w, b, 4);
    expect(hex(w)).toEqual([
      'bb755400',
      '3e89545e',
      'bed2b316',
      'bebc6680',
      'be4532f4',
      '3e094bec',
      'bc224f40',
      '3ecaface',
      'bd35bf70',
      '3e077b4c',
      'be1abbac',
      'bdc94870',
    ]);
    expect(hex(b)).toEqual(['bef491b8', 'bea98b52', 'be530ee8']);
  });

  it('torch.manual_seed(0); nn.Conv2d(3, 2, 3): weight begins babcda8b 3dd36ec5 be223254, bias 3e0421cb bde811ba', () => {
    const g = new CpuGenerator(0);
    const w = new Float32Array(2 * 3 * 3 * 3);
    const b = new Float32Array(2);
    resetParameters(g, w, b, 27);
    expect(hex(w).slice(0, 3)).toEqual(['babcda8b', '3dd36ec5', 'be223254']);
    expect(hex(b)).toEqual(['3e0421cb', 'bde811ba']);
    expect(hex(w)).toEqual(golden.modules.conv2d_3_2_3.weight); // all 54 values, from torch 1.13
  });

  it('the 1.13 goldens agree with the 2.11 ones for these modules', () => {
    expect(golden.modules.rand_5).toEqual(['3efe1558', '3f44aa2f', '3db533a8', '3e073300', '3e9d6686']);
    expect(golden.modules.linear_4_3.bias).toEqual(['bef491b8', 'bea98b52', 'be530ee8']);
    expect(golden.modules.conv2d_3_2_3.bias).toEqual(['3e0421cb', 'bde811ba']);
  });
});

describe(`initSimpleCnn vs init_golden.json (torch ${golden.torch}, gen_init_golden.py)`, () => {
  it('covers seeds 0, 1, 42, 2^32 + 7 at widths 0.5, 1, 2, and seed -1', () => {
    const keys = golden.models.map((m) => `${m.seed}@${m.width}`);
    for (const seed of [0, 1, 42, 2 ** 32 + 7]) for (const w of [0.5, 1, 2]) expect(keys).toContain(`${seed}@${w}`);
    expect(keys).toContain('-1@1');
  });

  it.each(golden.models.map((m) => [m.seed, m.width, m] as const))('seed %s width %s', (seed, width, m) => {
    const spec = simpleCnnSpec(width);
    const arena = initSimpleCnn(spec, seed);
    expect(spec.params.map((p) => p.name).sort()).toEqual(Object.keys(m.params).sort());
    for (const p of spec.params) {
      const want = m.params[p.name];
      const got = arena.subarray(p.offset, p.offset + p.size);
      expect(p.shape, p.name).toEqual(want?.shape);
      expect(hex(got.subarray(0, 8)), `${p.name} head`).toEqual(want?.head);
      expect(hex(got.subarray(-8)), `${p.name} tail`).toEqual(want?.tail);
      expect(sha256F32(got), `${p.name} sha256`).toBe(want?.sha256);
    }
  });

  it('the seed-0 width-1 golden matches the 2.11 fixture (ties 1.13 to 2.11)', () => {
    const st = parseSafetensors(
      new Uint8Array(readFileSync(new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url))),
    );
    const m = golden.models.find((x) => x.seed === 0 && x.width === 1);
    for (const [name, t] of Object.entries(m?.params ?? {}))
      expect(sha256F32(getF32(st, `param.${name}`)), name).toBe(t.sha256);
  });

  it('2^32 + 7 and 7 seed the same stream (only the low 32 bits matter)', () => {
    const spec = simpleCnnSpec(0.5);
    expect(firstMismatch('arena', initSimpleCnn(spec, 2 ** 32 + 7), initSimpleCnn(spec, 7))).toBeNull();
  });
});

describe('uniform_ rounding: one FMA (fmaF32)', () => {
  it.each(golden.uniform_ranges.map((r) => [r.seed, r.n, r.from, r.to, r] as const))(
    'torch.manual_seed(%i); empty(%i).uniform_(%s, %s): from/to cast to float32 first',
    (_s, _n, _f, _t, r) => {
      const v = uniformF32(new CpuGenerator(r.seed), r.n, r.from, r.to);
      expect(hex(v.subarray(0, 8))).toEqual(r.head);
      expect(hex(v.subarray(-8))).toEqual(r.tail);
      expect(sha256F32(v)).toBe(r.sha256);
    },
  );

  it.each(golden.fma_ties.map((t) => [t.seed, t.index, t.from, t.to, t] as const))(
    'torch.manual_seed(%i); draw %i of uniform_(%s, %s): an exact float32 midpoint',
    (_s, _i, _f, _t, t) => {
      const v = uniformF32(new CpuGenerator(t.seed), t.index + 1, t.from, t.to);
      expect(f32Hex(v[t.index] ?? NaN)).toBe(t.value);
    },
  );

  it('the tie cases really need the correction: plain rounding of the double sum misses half of them', () => {
    let naiveWrong = 0;
    for (const t of golden.fma_ties) {
      const g = new CpuGenerator(t.seed);
      for (let i = 0; i < t.index; i++) g.random();
      const x = (g.random() & 0xffffff) * 2 ** -24;
      const f = Math.fround(t.from);
      const naive = Math.fround(x * Math.fround(Math.fround(t.to) - f) + f);
      if (f32Hex(naive) !== t.value) naiveWrong++;
    }
    expect(golden.fma_ties.length).toBeGreaterThanOrEqual(8);
    expect(naiveWrong).toBe(golden.fma_ties.length / 2);
  });

  it('fmaF32 rounds once: exact cases, ties to even, and the error term deciding', () => {
    expect(fmaF32(0.5, 0.25, 1)).toBe(1.125);
    // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23: even (1) without error, up/down with it.
    expect(fmaF32(2 ** -12, 2 ** -12, 1)).toBe(1);
    expect(fmaF32(2 ** -12, 2 ** -12, 1 + 2 ** -23)).toBe(1 + 2 ** -22);
    const tiny = Math.fround(1e-30);
    expect(fmaF32(1 + 2 ** -23, 1 + 2 ** -23, tiny)).toBe(Math.fround(1 + 2 ** -22)); // exact value is 1 + 2^-22 + 2^-46 + tiny
    expect(fmaF32(1, 1 + 2 ** -23, -tiny)).toBe(1 + 2 ** -23);
    const a = 1 + 2 ** -12;
    expect(fmaF32(a, a, tiny)).toBe(Math.fround(1 + 2 ** -11 + 2 ** -23)); // a*a = 1 + 2^-11 + 2^-24: a tie, broken upward
    expect(fmaF32(a, a, -tiny)).toBe(1 + 2 ** -11); // broken downward
  });
});

describe('init argument checks', () => {
  it('bounds follow Python: kaiming with a = sqrt(5) is sqrt(3) * sqrt(2 / 6.000000000000001) / sqrt(fan_in)', () => {
    expect(kaimingUniformBound(27)).toBe(Math.sqrt(3.0) * (Math.sqrt(2.0 / (1 + 5.000000000000001)) / Math.sqrt(27)));
    expect(biasBound(27)).toBe(1 / Math.sqrt(27));
    expect(biasBound(0)).toBe(0);
    expect(() => kaimingUniformBound(0)).toThrow(/fan_in must be a positive integer \(got 0\)/);
  });

  it('rejects bad seeds and uniform_ ranges with specific errors', () => {
    expect(() => initSimpleCnn(simpleCnnSpec(1), 0.5)).toThrow(/seed must be an integer \(got 0.5\)/);
    expect(() => initSimpleCnn(simpleCnnSpec(1), 2n ** 64n)).toThrow(/outside \[-2\^63, 2\^64\)/);
    const g = new CpuGenerator(0);
    expect(() => uniformF32(g, 3, 1, 0)).toThrow(/from=1 > to=0/);
    expect(() => uniformF32(g, 3, 0, 1e39)).toThrow(/to=1e\+39 is out of bounds for float32/);
    expect(() => uniformF32(g, 3, -3e38, 3e38)).toThrow(/to-from <= float32 max/);
    expect(() => uniformF32(g, -1)).toThrow(/non-negative integer \(got -1\)/);
  });
});
