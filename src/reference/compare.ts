// Tensor comparison with PyTorch's closeness rule, |actual - expected| <= atol + rtol * |expected|
// (torch.isclose, equal_nan=False). Used by the tests and by `webddp parity`, which prints one
// formatComparison line per tensor. Rules:
//   * NaN never matches, not even NaN (a NaN on either side is a mismatch);
//   * equal values always match (so +Inf matches +Inf, as in torch.isclose); Inf vs anything else
//     does not;
//   * a length (or, when both sides give one, shape) mismatch is an error, not a failed comparison.

/** Closeness tolerances; both must be finite and >= 0. */
export interface Tolerance {
  readonly rtol: number;
  readonly atol: number;
}

/** A tensor to compare: its data, or its data with a shape (checked when both sides have one). */
export type Comparable = ArrayLike<number> | { readonly data: ArrayLike<number>; readonly shape: readonly number[] };

/** The outcome of compareTensors. */
export interface Comparison extends Tolerance {
  /** Every element is within tolerance (true for two empty tensors). */
  readonly ok: boolean;
  /** max |a - e| over all elements; NaN when a NaN was compared, Infinity for an infinite gap. */
  readonly maxAbs: number;
  /** max |a - e| / |e| over elements whose expected value is non-zero (0 if there are none). */
  readonly maxRel: number;
  /** The element that uses most of its tolerance (a NaN, then an infinite gap, then the largest |a - e| / (atol + rtol |e|)); -1 if all are equal. */
  readonly worstIndex: number;
  /** actual[worstIndex] and expected[worstIndex] (NaN when worstIndex is -1). */
  readonly worstActual: number;
  readonly worstExpected: number;
  /** Number of elements out of tolerance. */
  readonly mismatches: number;
  /** Number of elements compared. */
  readonly count: number;
}

function unpack(t: Comparable): { data: ArrayLike<number>; shape: readonly number[] | null } {
  return 'shape' in t && 'data' in t ? { data: t.data, shape: t.shape } : { data: t, shape: null };
}

/** Compares `actual` against `expected` element by element; throws on a length or shape mismatch. */
export function compareTensors(actual: Comparable, expected: Comparable, tol: Tolerance): Comparison {
  const { rtol, atol } = tol;
  if (!(Number.isFinite(rtol) && rtol >= 0 && Number.isFinite(atol) && atol >= 0)) {
    throw new RangeError(`tolerances must be finite and >= 0 (got rtol ${rtol}, atol ${atol})`);
  }
  const a = unpack(actual);
  const e = unpack(expected);
  if (a.shape && e.shape && (a.shape.length !== e.shape.length || a.shape.some((d, i) => d !== e.shape![i]))) {
    throw new RangeError(`shape mismatch: actual [${a.shape.join(', ')}] vs expected [${e.shape.join(', ')}]`);
  }
  if (a.data.length !== e.data.length) {
    throw new RangeError(`length mismatch: actual has ${a.data.length} elements, expected ${e.data.length}`);
  }
  const count = a.data.length;
  let maxAbs = 0;
  let maxRel = 0;
  let worstIndex = -1;
  let worstClass = 0;
  let worstRatio = 0;
  let mismatches = 0;
  for (let i = 0; i < count; i++) {
    const x = a.data[i]!;
    const y = e.data[i]!;
    if (x === y) continue; // also +-Inf against itself, and 0 against -0
    const diff = Math.abs(x - y); // NaN if either is NaN, Infinity if one is infinite (or both, of opposite signs)
    const bound = atol + rtol * Math.abs(y);
    if (!(diff <= bound) || !Number.isFinite(y)) mismatches++; // an infinite bound must not pass -Inf for +Inf
    if (Number.isNaN(diff) || Number.isNaN(maxAbs)) maxAbs = NaN;
    else if (diff > maxAbs) maxAbs = diff;
    if (y !== 0) {
      const rel = Number.isFinite(y) || Number.isNaN(diff) ? diff / Math.abs(y) : Infinity;
      if (Number.isNaN(rel) || Number.isNaN(maxRel)) maxRel = NaN;
      else if (rel > maxRel) maxRel = rel;
    }
    // Rank: a NaN first, then an infinite gap, then the largest share of the tolerance used.
    const cls = Number.isNaN(diff) ? 2 : diff === Infinity ? 1 : 0;
    const ratio = bound > 0 ? diff / bound : Infinity;
    if (worstIndex < 0 || cls > worstClass || (cls === worstClass && ratio > worstRatio)) {
      worstIndex = i;
      worstClass = cls;
      worstRatio = ratio;
    }
  }
  return {
    ok: mismatches === 0,
    maxAbs,
    maxRel,
    worstIndex,
    worstActual: worstIndex < 0 ? NaN : a.data[worstIndex]!,
    worstExpected: worstIndex < 0 ? NaN : e.data[worstIndex]!,
    mismatches,
    count,
    rtol,
    atol,
  };
}

/** An error with 4 significant digits; a value with 9, enough to tell float32 neighbours apart. */
function num(v: number, digits = 4): string {
  return Number.isFinite(v) ? String(Number(v.toPrecision(digits))) : String(v);
}

/** One line for a table: `PASS name  n=...  maxAbs ...  maxRel ...  mismatches k/n  worst [i] a vs e  (rtol, atol)`. */
export function formatComparison(name: string, c: Comparison): string {
  const worst =
    c.worstIndex < 0 ? 'all equal' : `worst [${c.worstIndex}] ${num(c.worstActual, 9)} vs ${num(c.worstExpected, 9)}`;
  return (
    `${c.ok ? 'PASS' : 'FAIL'} ${name}  maxAbs ${num(c.maxAbs)}  maxRel ${num(c.maxRel)}  ` +
    `mismatches ${c.mismatches}/${c.count}  ${worst}  (rtol ${c.rtol}, atol ${c.atol})`
  );
}
