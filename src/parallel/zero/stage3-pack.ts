// What ZeRO-3 uploads into its working buffer for one piece of a large Linear(i, o), from the
// gathered layer (arena order: weight [o, i], then bias [o]): rows [a, e) of the weight followed
// by the same rows of the bias (forward), or columns [a, e) of the weight as a dense [o, e - a]
// block (input gradient), the layouts linear-pieces.ts binds.
import type { LinearLayer } from '../../nn/layers/linear.ts';

export function rowsOf(arena: Float32Array, l: LinearLayer, a: number, e: number): Float32Array {
  const [, i = 0] = l.weight.shape;
  const out = new Float32Array((e - a) * (i + 1));
  out.set(arena.subarray(l.weight.offset + a * i, l.weight.offset + e * i), 0);
  out.set(arena.subarray(l.bias.offset + a, l.bias.offset + e), (e - a) * i);
  return out;
}

export function columnsOf(arena: Float32Array, l: LinearLayer, a: number, e: number): Float32Array {
  const [o = 0, i = 0] = l.weight.shape;
  const k = e - a;
  const out = new Float32Array(o * k);
  for (let r = 0; r < o; r++) {
    const row = l.weight.offset + r * i;
    out.set(arena.subarray(row + a, row + e), r * k);
  }
  return out;
}
