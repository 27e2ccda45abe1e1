// Number formatting for the teaching page.

/** 1536 -> "1.5 KiB"; bytes as PyTorch's memory summary shows them (binary units). */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v.toFixed(0) : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

/** A number with a fixed count of significant digits, '–' for NaN. */
export function num(n: number, digits = 4): string {
  return Number.isFinite(n) ? n.toPrecision(digits) : '–';
}

/** 0.4321 -> "43.2%". */
export function pct(n: number): string {
  return Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : '–';
}

/** Images per second, rounded sensibly. */
export function rate(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/** Milliseconds as "12.3 ms" or "1.23 s". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
}
