// Every schedule's parameters with their kinds, ranges and defaults (PyTorch's and DeepSpeed's
// constructor defaults), as one table keyed by type: the compiler checks that every type and every
// parameter of its config has an entry. parseSchedule checks a { type, params } object against it
// (a ds_config `scheduler` block, or what the --schedule flag parsed), naming each bad path.
import { SCHEDULE_TYPES, type LrScheduleConfig, type ScheduleOf, type ScheduleType } from './types.ts';
import { BOUNDS } from '../input/bounds.ts';

/** required: must be given; optional: may be absent; total: a cycle length, required in a ds_config, else the run's length. */
type Presence = { readonly need: 'required' | 'optional' | 'total' } | { readonly default: number | boolean | string };
export type ParamSpec = Presence &
  (
    | { readonly kind: 'int'; readonly min: number }
    | { readonly kind: 'num'; readonly min: number; readonly max?: number; readonly minOpen?: boolean }
    | { readonly kind: 'bool' }
    | { readonly kind: 'enum'; readonly values: readonly string[] }
  );

type Table = { readonly [T in ScheduleType]: { readonly [K in keyof ScheduleOf<T>['params']]-?: ParamSpec } };

const lr = (d?: number): ParamSpec => ({
  kind: 'num',
  min: BOUNDS.scheduleLr.min,
  max: BOUNDS.scheduleLr.max,
  ...(d === undefined ? { need: 'required' } : { default: d }),
});
const steps = (d: number): ParamSpec => ({ kind: 'int', min: 1, default: d });
const total: ParamSpec = { kind: 'int', min: 1, need: 'total' };
const warmupType: ParamSpec = { kind: 'enum', values: ['log', 'linear'], default: 'log' };
const ratio = (d: number): ParamSpec => ({ kind: 'num', min: 0, max: 1, default: d });

export const SCHEDULE_PARAMS: Table = {
  // torch 2.x refuses start_factor <= 0 (1.13 accepted 0 and then divided by zero at step 1).
  LinearLR: {
    start_factor: { kind: 'num', min: 0, max: 1, minOpen: true, default: 1.0 / 3 },
    end_factor: ratio(1.0),
    total_iters: steps(5),
  },
  StepLR: {
    step_size: { kind: 'int', min: 1, need: 'required' },
    gamma: { kind: 'num', min: BOUNDS.scheduleFactor.min, max: BOUNDS.scheduleFactor.max, default: 0.1 },
  },
  CosineAnnealingLR: { T_max: { kind: 'int', min: 1, need: 'required' }, eta_min: lr(0) },
  OneCycleLR: {
    max_lr: { kind: 'num', min: 0, minOpen: true, max: BOUNDS.scheduleLr.max, need: 'required' },
    total_steps: { kind: 'int', min: 1, need: 'optional' },
    epochs: { kind: 'int', min: 1, need: 'optional' },
    steps_per_epoch: { kind: 'int', min: 1, need: 'optional' },
    pct_start: ratio(0.3),
    anneal_strategy: { kind: 'enum', values: ['cos', 'linear'], default: 'cos' },
    cycle_momentum: { kind: 'bool', default: true },
    base_momentum: ratio(0.85),
    max_momentum: ratio(0.95),
    div_factor: { kind: 'num', min: 0, minOpen: true, default: 25 },
    final_div_factor: { kind: 'num', min: 0, minOpen: true, default: 1e4 },
    three_phase: { kind: 'bool', default: false },
  },
  // DeepSpeed's constructor defaults (not its argparse ones); warmup_max_lr None means the optimizer's lr.
  WarmupLR: {
    warmup_min_lr: lr(0),
    warmup_max_lr: { kind: 'num', min: 0, max: BOUNDS.scheduleLr.max, need: 'optional' },
    warmup_num_steps: steps(1000),
    warmup_type: warmupType,
  },
  WarmupDecayLR: {
    total_num_steps: total,
    warmup_min_lr: lr(0),
    warmup_max_lr: lr(0.001),
    warmup_num_steps: steps(1000),
    warmup_type: warmupType,
  },
  WarmupCosineLR: {
    total_num_steps: total,
    warmup_min_ratio: ratio(0),
    warmup_num_steps: steps(1000),
    cos_min_ratio: ratio(0.0001),
    warmup_type: warmupType,
  },
};

export const isScheduleType = (t: unknown): t is ScheduleType =>
  typeof t === 'string' && (SCHEDULE_TYPES as readonly string[]).includes(t);

function checkValue(spec: ParamSpec, v: unknown): string | null {
  switch (spec.kind) {
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v) && v >= spec.min
        ? null
        : `must be an integer >= ${spec.min}`;
    case 'num': {
      const ok =
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (spec.minOpen ? v > spec.min : v >= spec.min) &&
        (spec.max === undefined || v <= spec.max);
      const range = `${spec.minOpen ? '>' : '>='} ${spec.min}${spec.max === undefined ? '' : ` and <= ${spec.max}`}`;
      return ok ? null : `must be a number ${range}`;
    }
    case 'bool':
      return typeof v === 'boolean' ? null : 'must be true or false';
    case 'enum':
      return typeof v === 'string' && spec.values.includes(v)
        ? null
        : `must be one of ${spec.values.map((x) => `'${x}'`).join(', ')}`;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks `input` ({ type, params }) at `path` (e.g. 'scheduler'), filling defaults. requireTotals: a
 * ds_config must give total_num_steps as DeepSpeed requires; the CLI may leave it to the run length.
 */
export function parseSchedule(
  input: unknown,
  path: string,
  requireTotals: boolean,
): { ok: true; config: LrScheduleConfig } | { ok: false; issues: string[] } {
  if (!isObject(input)) return { ok: false, issues: [`${path} must be an object with type and params`] };
  const issues: string[] = [];
  for (const k of Object.keys(input)) if (k !== 'type' && k !== 'params') issues.push(`${path}.${k} is not supported`);
  const type = input.type;
  if (!isScheduleType(type)) {
    issues.push(`${path}.type ${JSON.stringify(type)} is not supported: use one of ${SCHEDULE_TYPES.join(', ')}`);
    return { ok: false, issues };
  }
  const params = input.params ?? (requireTotals ? undefined : {});
  if (!isObject(params)) return { ok: false, issues: [...issues, `${path}.params must be an object`] };
  const specs: Readonly<Record<string, ParamSpec>> = SCHEDULE_PARAMS[type];
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(params))
    if (!Object.hasOwn(specs, k))
      issues.push(`${path}.params.${k} is not supported by ${type} (it takes ${Object.keys(specs).join(', ')})`);
  for (const [k, spec] of Object.entries(specs)) {
    const v = params[k];
    // JSON null is Python's None: DeepSpeed's default only where the parameter may be absent (warmup_max_lr).
    if (v === undefined || (v === null && 'need' in spec && spec.need === 'optional')) {
      if ('default' in spec) out[k] = spec.default;
      else if (spec.need === 'required' || (spec.need === 'total' && requireTotals))
        issues.push(`${path}.params.${k} is required by ${type}`);
      continue;
    }
    const problem = checkValue(spec, v);
    if (problem) issues.push(`${path}.params.${k} ${problem} (got ${JSON.stringify(v)})`);
    else out[k] = v;
  }
  if (
    type === 'OneCycleLR' &&
    requireTotals &&
    out.total_steps === undefined &&
    (out.epochs === undefined || out.steps_per_epoch === undefined)
  )
    issues.push(`${path}.params: OneCycleLR needs total_steps, or epochs and steps_per_epoch`);
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, config: { type, params: out } as unknown as LrScheduleConfig };
}
