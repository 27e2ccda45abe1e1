// The kernel cases' assertion: a tensor within tolerance of the CPU reference, else a
// KernelMismatchError carrying compareTensors' one-line report (the check's row and the test's
// failure message both print it).
import { compareTensors, formatComparison, type Comparable, type Tolerance } from '../../reference/compare.ts';

export class KernelMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KernelMismatchError';
  }
}

/** Throws a KernelMismatchError unless `actual` is within `tol` of `expected`. */
export function expectClose(name: string, actual: Comparable, expected: Comparable, tol: Tolerance): void {
  const c = compareTensors(actual, expected, tol);
  if (!c.ok) throw new KernelMismatchError(formatComparison(name, c));
}

/** Throws a KernelMismatchError naming `what` unless `ok`. */
export function expectTrue(ok: boolean, what: string): void {
  if (!ok) throw new KernelMismatchError(what);
}
