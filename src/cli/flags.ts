// Flag values decoded for every `webddp` command: integers, decimal numbers, torch seeds and lists,
// each checked with a message that names the flag and the value it got. Numbers are decimal only
// ('0x10', 'Infinity', '' and '1_000' are refused, where JavaScript's Number() would take them).
import { decimalInt, decimalNumber } from '../input/decimal.ts';
import { seedToU64 } from '../random/generator.ts';
import { UsageError } from './command.ts';

/** A flag's string value (undefined for a switch or a flag not given). */
export const str = (v: string | boolean | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** A required flag's value, or a UsageError saying it is missing. */
export function required(flag: string, v: string | undefined): string {
  if (v === undefined) throw new UsageError(`${flag} is required`);
  return v;
}

/** A decimal integer in [min, max] (safe integers only). */
export function intFlag(flag: string, v: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const n = decimalInt(v, 'typed');
  if (n === undefined || n < min || n > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? min === Number.MIN_SAFE_INTEGER
          ? 'an integer'
          : `an integer >= ${min}`
        : `an integer in [${min}, ${max}]`;
    throw new UsageError(`${flag} must be ${range} (got '${v}')`);
  }
  return n;
}

/** A torch seed: a decimal integer in [-2^63, 2^64), as torch.manual_seed accepts. */
export function seedFlag(flag: string, v: string): bigint {
  const s = v.trim();
  if (/^[+-]?\d+$/.test(s)) {
    const b = BigInt(s);
    try {
      seedToU64(b);
      return b;
    } catch {
      // out of range: reported below
    }
  }
  throw new UsageError(`${flag} must be an integer in [-2^63, 2^64) (got '${v}')`);
}

/** A comma-separated list of integers >= 1, e.g. --batches 32,128,512. */
export function intListFlag(flag: string, v: string): number[] {
  const parts = v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
  if (parts.length === 0) throw new UsageError(`${flag} needs a comma-separated list of integers (got '${v}')`);
  return parts.map((p) => intFlag(flag, p, 1));
}

/** A finite decimal number > 0 (or >= 0 with allowZero), as people write one: 12, .5, 1e-3, 2.5E+4. */
export function numberFlag(flag: string, v: string, allowZero = false): number {
  const n = decimalNumber(v, 'typed');
  if (n === undefined || n < 0 || (n === 0 && !allowZero)) {
    throw new UsageError(`${flag} must be a decimal number ${allowZero ? '>= 0' : '> 0'} (got '${v}')`);
  }
  return n;
}
