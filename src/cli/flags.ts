// Flag parsing shared by `webddp sampler` and `webddp init`: node:util parseArgs errors turned into
// UsageErrors, and integer / torch-seed flag values checked with messages that name the flag and
// the value it got.
import { seedToU64 } from '../random/generator.ts';
import { UsageError } from './command.ts';

/**
 * Runs `parse` (a strict node:util parseArgs call) and turns its errors (unknown flag, missing
 * value, stray positional) into UsageErrors, so every input error exits 2.
 */
export function parseFlags<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof Error && (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      throw new UsageError(e.message);
    throw e;
  }
}

/** A required flag's value, or a UsageError saying it is missing. */
export function required(flag: string, v: string | undefined): string {
  if (v === undefined) throw new UsageError(`${flag} is required`);
  return v;
}

/** A decimal integer in [min, max] (safe integers only). */
export function intFlag(flag: string, v: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const s = v.trim();
  const n = Number(s);
  if (!/^[+-]?\d+$/.test(s) || !Number.isSafeInteger(n) || n < min || n > max) {
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

/** A finite number > 0 (or >= 0 with allowZero). */
export function numberFlag(flag: string, v: string, allowZero = false): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !allowZero)) {
    throw new UsageError(`${flag} must be a number ${allowZero ? '>= 0' : '> 0'} (got '${v}')`);
  }
  return n;
}
