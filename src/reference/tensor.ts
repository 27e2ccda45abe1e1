// Shared plumbing of the CPU reference ops (src/reference): the array types they accept, output
// allocation and argument checks. The ops take Float32Array or Float64Array inputs and write into
// an optional `out` array (llm.c style); without one they return a fresh Float32Array, rounded
// once from float64 sums. Passing Float64Array outputs runs a whole chain in float64, which the
// finite-difference gradient checks use.

/** A dense tensor's data, row-major (NCHW for images). */
export type Tensor = Float32Array | Float64Array;

/** Throws unless `n` is a positive safe integer (a dimension of `what`). */
export function checkDim(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer (got ${n})`);
}

/** Throws unless `a` holds exactly `size` elements (`shape` names them in the message). */
export function expectLength(name: string, a: ArrayLike<number>, size: number, shape: string): void {
  if (a.length !== size) throw new RangeError(`${name} has ${a.length} elements, expected ${size} = ${shape}`);
}

/** `out` after checking its length, or a fresh zeroed Float32Array of `size` elements. */
export function output<T extends Tensor = Float32Array>(
  out: T | undefined,
  size: number,
  name: string,
  shape: string,
): T {
  if (out === undefined) return new Float32Array(size) as T;
  expectLength(name, out, size, shape);
  return out;
}
