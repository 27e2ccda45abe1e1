// PyTorch's CPU generator, bit for bit: at::mt19937 (standard MT19937 seeded with the low 32 bits
// of the 64-bit seed) behind CPUGeneratorImpl (random() = one draw, random64() = high draw then
// low draw). Every random number in webddp (init, sampler, augmentation) comes from here.
// Source: aten/src/ATen/core/MT19937RNGEngine.h, aten/src/ATen/CPUGeneratorImpl.cpp.

const N = 624;
const M = 397;

/** torch.Generator().manual_seed(seed): seeds in [-2^63, 2^64); negatives wrap as in two's complement. */
export function seedToU64(seed: bigint | number): bigint {
  const s = BigInt(seed);
  if (s >= 0n && s < 1n << 64n) return s;
  if (s < 0n && s >= -(1n << 63n)) return BigInt.asUintN(64, s);
  throw new RangeError(`seed ${s} is outside [-2^63, 2^64)`);
}

export class CpuGenerator {
  private readonly mt = new Uint32Array(N);
  private left = 1;
  private next = 0;
  readonly initialSeed: bigint;

  /** Like `torch.Generator().manual_seed(seed)`. */
  constructor(seed: bigint | number) {
    this.initialSeed = seedToU64(seed);
    const mt = this.mt;
    mt[0] = Number(this.initialSeed & 0xffffffffn);
    for (let j = 1; j < N; j++) {
      const p = (mt[j - 1] ?? 0) ^ ((mt[j - 1] ?? 0) >>> 30);
      mt[j] = (Math.imul(1812433253, p) + j) >>> 0;
    }
  }

  /** One 32-bit draw (CPUGeneratorImpl::random). */
  random(): number {
    if (--this.left === 0) this.twist();
    let y = this.mt[this.next++] ?? 0;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** One 64-bit draw: the first 32-bit draw is the high word (CPUGeneratorImpl::random64). */
  random64(): bigint {
    const hi = this.random();
    const lo = this.random();
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  private twist(): void {
    const mt = this.mt;
    const mix = (u: number, v: number) =>
      ((((u & 0x80000000) | (v & 0x7fffffff)) >>> 1) ^ (v & 1 ? 0x9908b0df : 0)) >>> 0;
    let p = 0;
    for (; p < N - M; p++) mt[p] = ((mt[p + M] ?? 0) ^ mix(mt[p] ?? 0, mt[p + 1] ?? 0)) >>> 0;
    for (; p < N - 1; p++) mt[p] = ((mt[p + M - N] ?? 0) ^ mix(mt[p] ?? 0, mt[p + 1] ?? 0)) >>> 0;
    mt[N - 1] = ((mt[M - 1] ?? 0) ^ mix(mt[N - 1] ?? 0, mt[0] ?? 0)) >>> 0;
    this.left = N;
    this.next = 0;
  }
}

/**
 * torch.randperm(n, generator=g) on the CPU (int64). For n < 214748364 (every dataset here), a
 * forward Fisher-Yates with `random() % (n - i)`; above, torch >= 2.7's inside-out variant with
 * 64-bit draws. Source: aten/src/ATen/native/TensorFactories.cpp randperm_cpu.
 */
export function randperm(n: number, g: CpuGenerator): Int32Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`randperm: n must be a non-negative integer (got ${n})`);
  const r = new Int32Array(n);
  if (n < 214748364) {
    for (let i = 0; i < n; i++) r[i] = i;
    for (let i = 0; i < n - 1; i++) {
      const z = g.random() % (n - i);
      const t = r[i] ?? 0;
      r[i] = r[i + z] ?? 0;
      r[i + z] = t;
    }
    return r;
  }
  for (let i = 0; i < n; i++) {
    const z = Number(g.random64() % BigInt(i + 1));
    r[i] = r[z] ?? 0;
    r[z] = i;
  }
  return r;
}
