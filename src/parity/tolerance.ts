// The PyTorch fixtures' tolerance rules, applied per output tensor:
//  * strict: |a - b| <= 1e-5 + 1e-4 |b| for logits, loss, gradients, clipped gradients, SGD steps
//    and per-step losses;
//  * adam: Adam/AdamW turn near-zero gradients into steps of about lr whose sign is rounding, so
//    every parameter within 5e-3 and at least 99.9% within 1e-4 + 1e-3 |b|;
//  * f16: an fp16 step against PyTorch's autocast: |a - b| <= a bound the replay derives per tensor
//    from fp16 rounding (src/parity/autocast.ts, docs/precision.md);
//  * reported: compared against such a bound and shown, not judged (the autocast replay's
//    convolution gradients, which max-pool's choices among fp16 ties make discontinuous);
//  * exact: bit for bit.
import { compareTensors, type Comparison } from '../reference/compare.ts';

export type RuleName = 'strict' | 'adam' | 'exact' | 'f16' | 'reported';

export interface ParityRow {
  readonly name: string;
  readonly rule: RuleName;
  readonly ok: boolean;
  readonly main: Comparison;
  /** For the adam rule: the fraction of elements within the tight tolerance. */
  readonly fraction?: number;
}

const STRICT = { rtol: 1e-4, atol: 1e-5 } as const;
const ADAM_TIGHT = { rtol: 1e-3, atol: 1e-4 } as const;
const ADAM_BOUND = { rtol: 0, atol: 5e-3 } as const;

export function checkTensor(
  name: string,
  rule: RuleName,
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  /** The f16 and reported rules' bound on |a - b|. */
  f16Bound?: number,
): ParityRow {
  if (actual.length !== expected.length)
    return failedRow(`${name} (length ${actual.length} vs ${expected.length})`, rule, expected.length);
  if (rule === 'f16' || rule === 'reported') {
    if (f16Bound === undefined) throw new Error(`${name}: the ${rule} rule needs its bound`);
    const main = compareTensors(actual, expected, { rtol: 0, atol: f16Bound });
    // a reported tensor is shown, never judged: its row holds whatever the comparison found
    return { name, rule, ok: rule === 'reported' || main.ok, main };
  }
  if (rule === 'strict' || rule === 'exact') {
    const main = compareTensors(actual, expected, rule === 'exact' ? { rtol: 0, atol: 0 } : STRICT);
    return { name, rule, ok: main.ok, main };
  }
  const tight = compareTensors(actual, expected, ADAM_TIGHT);
  const bound = compareTensors(actual, expected, ADAM_BOUND);
  const fraction = tight.count === 0 ? 1 : 1 - tight.mismatches / tight.count;
  return { name, rule, ok: bound.ok && fraction >= 0.999, main: tight, fraction };
}

/** The rule as the tables print it. */
export function describeRule(r: ParityRow): string {
  switch (r.rule) {
    case 'strict':
      return 'rtol 1e-4 atol 1e-5';
    case 'exact':
      return 'exact';
    case 'f16':
      return `|a - b| <= ${r.main.atol.toExponential(2)} (fp16 rounding)`;
    case 'reported':
      return `not judged: max-pool's choices among fp16 ties; ${(r.main.maxAbs / r.main.atol).toFixed(1)} x the fp16-rounding bound ${r.main.atol.toExponential(2)}`;
    case 'adam':
      return `all <= 5e-3, ${((r.fraction ?? 0) * 100).toFixed(2)}% tight (>= 99.9%)`;
  }
}

/** A row that fails before any value is compared (`name` says why: a length or a shape). */
export function failedRow(name: string, rule: RuleName, count: number): ParityRow {
  const main: Comparison = {
    ok: false,
    maxAbs: NaN,
    maxRel: NaN,
    worstIndex: -1,
    worstActual: NaN,
    worstExpected: NaN,
    mismatches: count,
    count,
    rtol: 0,
    atol: 0,
  };
  return { name, rule, ok: false, main };
}

/** Whether two tensor shapes are the same (a scalar's [] and [1] are one shape). */
export function sameShape(a: readonly (number | bigint)[], b: readonly (number | bigint)[]): boolean {
  const norm = (s: readonly (number | bigint)[]) => (s.length === 1 && Number(s[0]) === 1 ? [] : s.map(Number));
  const [x, y] = [norm(a), norm(b)];
  return x.length === y.length && x.every((d, i) => d === y[i]);
}

export function formatRows(rows: readonly ParityRow[]): string {
  const head = ['tensor', 'max abs', 'max rel', 'out of tol', 'rule', 'ok'];
  const body = rows.map((r) => [
    r.name,
    r.main.maxAbs.toExponential(2),
    r.main.maxRel.toExponential(2),
    `${r.main.mismatches}/${r.main.count}`,
    describeRule(r),
    r.rule === 'reported' ? 'shown' : r.ok ? 'ok' : 'FAIL',
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (i === 0 || i >= 4 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}
