// The --schedule flag: `TYPE` or `TYPE:name=value,name=value` with the schedule's own parameter
// names, e.g. `CosineAnnealingLR:T_max=100,eta_min=0` or `WarmupLR:warmup_num_steps=100,warmup_type=linear`.
// The type is matched case-insensitively; values are read by the parameter's kind (numbers,
// true/false, names), then checked by parseSchedule like a ds_config `scheduler` block is.
import { isScheduleType, parseSchedule, SCHEDULE_PARAMS, type ParamSpec } from './params.ts';
import { SCHEDULE_TYPES, type LrScheduleConfig } from './types.ts';

function readValue(spec: ParamSpec | undefined, text: string): unknown {
  if (!spec || spec.kind === 'enum') return text;
  if (spec.kind === 'bool') return text === 'true' ? true : text === 'false' ? false : text;
  const n = Number(text);
  return text.trim() === '' || Number.isNaN(n) ? text : n;
}

/** The flag's value as a schedule config, or the problems found (each naming the flag and the part). */
export function parseScheduleFlag(
  flag: string,
  value: string,
): { ok: true; config: LrScheduleConfig } | { ok: false; issues: string[] } {
  const colon = value.indexOf(':');
  const name = (colon < 0 ? value : value.slice(0, colon)).trim();
  const type = SCHEDULE_TYPES.find((t) => t.toLowerCase() === name.toLowerCase());
  if (!isScheduleType(type))
    return { ok: false, issues: [`${flag} '${name}' is not a schedule: use one of ${SCHEDULE_TYPES.join(', ')}`] };
  const specs: Readonly<Record<string, ParamSpec>> = SCHEDULE_PARAMS[type];
  const params: Record<string, unknown> = {};
  const issues: string[] = [];
  const body = colon < 0 ? '' : value.slice(colon + 1);
  for (const part of body.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) {
      issues.push(`${flag} part '${part}' must be name=value`);
      continue;
    }
    const key = part.slice(0, eq).trim();
    if (key in params) issues.push(`${flag} gives ${key} twice`);
    params[key] = readValue(specs[key], part.slice(eq + 1).trim());
  }
  if (issues.length > 0) return { ok: false, issues };
  const r = parseSchedule({ type, params }, flag, false);
  return r.ok ? r : { ok: false, issues: r.issues.map((i) => i.replace(`${flag}.params.`, `${flag} ${type} `)) };
}
