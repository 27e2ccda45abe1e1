// Small readers for a ds_config.json object: each checks one value at a path and, when it is
// wrong, adds a message that starts with the path (`zero_optimization.stage must be ...`) to the
// issue list instead of throwing, so one parse reports every problem at once.
import type { Bound } from '../input/bounds.ts';

export type Obj = Readonly<Record<string, unknown>>;
export type Issues = string[];

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/** The object at `path`, or undefined (and an issue unless the value is absent). */
export function section(v: unknown, path: string, issues: Issues): Obj | undefined {
  if (v === undefined) return undefined;
  if (isObj(v)) return v;
  issues.push(`${path} must be an object (got ${show(v)})`);
  return undefined;
}

/**
 * Refuses every key of `obj` that is not in `known`, by its full path. `hints` gives the message
 * for keys that deserve more than "not supported" (a misspelt or foreign key).
 */
export function onlyKeys(
  obj: Obj,
  path: string,
  known: readonly string[],
  issues: Issues,
  hints: Readonly<Record<string, string>> = {},
): void {
  const at = (k: string) => (path ? `${path}.${k}` : k);
  for (const k of Object.keys(obj))
    if (!known.includes(k)) issues.push(Object.hasOwn(hints, k) ? `${at(k)} ${hints[k]}` : `${at(k)} is not supported`);
}

/** An integer (JSON 2e8 included) in [min, max]. */
export function int(v: unknown, path: string, issues: Issues, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max) return v;
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  issues.push(`${path} must be an integer ${range} (got ${show(v)})`);
  return undefined;
}

/** A finite number >= min (> min with open) and <= max. */
export function num(v: unknown, path: string, issues: Issues, min: number, max = Infinity, open = false) {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isFinite(v) && (open ? v > min : v >= min) && v <= max) return v;
  const range = `${open ? '>' : '>='} ${min}${max === Infinity ? '' : ` and <= ${max}`}`;
  issues.push(`${path} must be a number ${range} (got ${show(v)})`);
  return undefined;
}

/** A number within one of the shared bounds (src/input/bounds.ts). */
export function bounded(v: unknown, path: string, issues: Issues, b: Bound) {
  return num(v, path, issues, b.min, b.max, b.minOpen ?? false);
}

export function bool(v: unknown, path: string, issues: Issues) {
  if (v === undefined || typeof v === 'boolean') return v;
  issues.push(`${path} must be true or false (got ${show(v)})`);
  return undefined;
}

/**
 * A key webddp accepts only at the value that matches what it does (e.g. reduce_scatter: true):
 * another value of the right type is refused as not supported, saying why.
 */
export function only(v: unknown, path: string, issues: Issues, allowed: boolean | number, why: string): void {
  if (v === undefined || v === allowed) return;
  if (typeof v !== typeof allowed) issues.push(`${path} must be ${typeof allowed} (got ${show(v)})`);
  else issues.push(`${path} = ${show(v)} is not supported: ${why}`);
}
