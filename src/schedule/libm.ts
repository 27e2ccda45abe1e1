// Correctly rounded cos and log for the schedules. PyTorch and DeepSpeed get math.cos / math.log
// from glibc, whose results are correctly rounded on all but very rare inputs; V8's Math.cos and
// Math.log (fdlibm) are off by 1 ulp on a few percent of them. Evaluating in double-double
// arithmetic (about 106 bits) and rounding once gives the correctly rounded value, so the
// schedules reproduce glibc's float64 results, checked on every call the fixtures make.
type DD = readonly [number, number];

const SPLIT = 134217729; // 2^27 + 1 (Dekker)
function twoProd(a: number, b: number): DD {
  const p = a * b;
  const ta = SPLIT * a;
  const ah = ta - (ta - a);
  const al = a - ah;
  const tb = SPLIT * b;
  const bh = tb - (tb - b);
  const bl = b - bh;
  return [p, ah * bh - p + ah * bl + al * bh + al * bl];
}
function twoSum(a: number, b: number): DD {
  const s = a + b;
  const bb = s - a;
  return [s, a - (s - bb) + (b - bb)];
}
function norm(hi: number, lo: number): DD {
  const s = hi + lo;
  return [s, lo - (s - hi)];
}
function add(a: DD, b: DD): DD {
  const [s, e] = twoSum(a[0], b[0]);
  const [t, f] = twoSum(a[1], b[1]);
  const [u, g] = norm(s, e + t);
  return norm(u, g + f);
}
const neg = (a: DD): DD => [-a[0], -a[1]];
function mul(a: DD, b: DD): DD {
  const [p, e] = twoProd(a[0], b[0]);
  return norm(p, e + (a[0] * b[1] + a[1] * b[0]));
}
function div(a: DD, b: DD): DD {
  const q1 = a[0] / b[0];
  const r = add(a, neg(mul([q1, 0], b)));
  const q2 = r[0] / b[0];
  const r2 = add(r, neg(mul([q2, 0], b)));
  return add(norm(q1, q2), [r2[0] / b[0], 0]);
}

/** Sum of term_k while it matters: term_0 = first, term_k = term_(k-1) * x / step(k). */
function series(first: DD, x: DD, step: (k: number) => DD, sign = 1): DD {
  let sum = first;
  let term = first;
  for (let k = 1; k < 60; k++) {
    term = div(mul(term, x), step(k));
    if (sign < 0) term = neg(term);
    sum = add(sum, term);
    if (Math.abs(term[0]) < 1e-36 * Math.abs(sum[0])) break;
  }
  return sum;
}

// pi/2 in four parts (fdlibm's pio2_1, pio2_2, pio2_3: 33 bits each, so n * part is exact for
// n < 2^20; pio2_3t the rest): about 150 bits.
const PIO2 = [1.5707963267341256, 6.077100506303966e-11, 2.0222662487111665e-21, 8.4784276603689e-32] as const;
// ln 2 as a double-double.
const LN2: DD = [0.6931471805599453, 2.3190468138462996e-17];

/** cos(x), correctly rounded, for |x| < 2^19 (the schedules pass pi * k / T with k a few cycles of T). */
export function crCos(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 19) return Math.cos(x);
  const n = Math.round(x / (Math.PI / 2));
  let r: DD = [x - n * PIO2[0], 0];
  for (const part of PIO2.slice(1)) r = add(r, neg(twoProd(n, part)));
  const r2 = mul(r, r);
  const cos = () => series([1, 0], r2, (k) => [(2 * k - 1) * (2 * k), 0], -1);
  const sin = () => series(r, r2, (k) => [2 * k * (2 * k + 1), 0], -1);
  const q = ((n % 4) + 4) % 4;
  const v = q === 0 ? cos() : q === 1 ? neg(sin()) : q === 2 ? neg(cos()) : sin();
  return v[0] + v[1];
}

/** log(x), correctly rounded, for normal x > 0. */
export function crLog(x: number): number {
  if (!(x > 0) || !Number.isFinite(x) || x < 2 ** -1022) return Math.log(x);
  if (x === 1) return 0;
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)); log x = e ln2 + 2 atanh((m - 1) / (m + 1)).
  let e = Math.floor(Math.log2(x));
  let m = x / 2 ** e;
  if (m < Math.SQRT1_2) [m, e] = [m * 2, e - 1];
  else if (m >= Math.SQRT2) [m, e] = [m / 2, e + 1];
  const s = div([m - 1, 0], twoSum(m, 1));
  const s2 = mul(s, s);
  // atanh(s) = sum s^(2k+1) / (2k+1): terms t_k = s^(2k+1), divided as they are added.
  let sum = s;
  let power = s;
  for (let k = 1; k < 40; k++) {
    power = mul(power, s2);
    const term = div(power, [2 * k + 1, 0]);
    sum = add(sum, term);
    if (Math.abs(term[0]) < 1e-36 * Math.abs(sum[0])) break;
  }
  const v = add(mul(LN2, [e, 0]), add(sum, sum));
  return v[0] + v[1];
}

export const CORRECTLY_ROUNDED = { cos: crCos, log: crLog } as const;
