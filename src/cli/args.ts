// Small validators for CLI flag values: each error names the flag and the value it got.
import { UsageError } from './command.ts';

export function positiveInt(flag: string, v: string, min = 1): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} must be an integer >= ${min} (got '${v}')`);
  return n;
}

export function intList(flag: string, v: string): number[] {
  const parts = v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (parts.length === 0) throw new UsageError(`${flag} needs a comma-separated list of integers (got '${v}')`);
  return parts.map((p) => positiveInt(flag, p));
}

export function positiveNumber(flag: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a number > 0 (got '${v}')`);
  return n;
}
