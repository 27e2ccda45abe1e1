// Matrix product reference, as shaders/matmul_f32.wgsl and matmul_f16_sgmat.wgsl (the matmul
// ceilings): C = A B for square n x n row-major matrices, sums in float64.
export function matmul(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  if (a.length !== n * n || b.length !== n * n)
    throw new RangeError(`matmul: A and B must hold ${n} x ${n} values (got ${a.length} and ${b.length})`);
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      const v = a[i * n + k] ?? 0;
      for (let j = 0; j < n; j++) c[i * n + j] = (c[i * n + j] ?? 0) + v * (b[k * n + j] ?? 0);
    }
  return c;
}
