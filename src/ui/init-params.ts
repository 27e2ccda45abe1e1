// Initial parameters for the page (temporary until PyTorch-identical init lands): uniform
// +-1/sqrt(fan_in) from the torch generator.
import { CpuGenerator } from '../dist/rng.ts';
import { simpleCnnSpec } from '../nn/spec.ts';

export function initSimpleCnnOrRandom(seed: number): Float32Array {
  const spec = simpleCnnSpec(1);
  const g = new CpuGenerator(seed);
  const out = new Float32Array(spec.total);
  for (const p of spec.params) {
    const bound = 1 / Math.sqrt(p.fanIn);
    for (let i = 0; i < p.size; i++) out[p.offset + i] = ((g.random() & 0xffffff) / 2 ** 24) * 2 * bound - bound;
  }
  return out;
}
