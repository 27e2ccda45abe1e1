// Settings from the page address, so a teacher can share a link to a prepared run
// (`?mode=dp&workers=4&batchSize=8&autostart=1`). Values are only parsed here; the form validates
// them like typed ones, so a bad link shows its mistakes at the controls instead of reaching a worker.
import type { FormValues, FieldKey } from './controls/field-key.ts';
import { FIELDS } from './controls/config-fields.ts';
import { isLifeKey, parseLifeParam, type LifeKey } from './controls/life-settings.ts';
import type { Placement } from '../parallel/mode.ts';
import { isJsonObject, parseJson } from '../input/json.ts';

export interface PageParams {
  readonly values: FormValues;
  /** Checkpoints and restarts (checkpoints, checkpointEvery, keep, maxRestarts). */
  readonly life: Partial<Record<LifeKey, boolean | number>>;
  /** Also passed to the run but not shown on the form. */
  readonly testLimit?: number;
  /** A staged failure, RANK:STEP:KIND (e.g. 1:3:throw), to show what a dying worker does to a run. */
  readonly fault?: string;
  /** Start the run on load (default true: the page teaches without a click). */
  readonly autostart: boolean;
  /** The lesson of the guided path to open (its id), if any. */
  readonly lesson?: string;
  /** `placement=shared-device`: the workers share one device (where the run's mode accepts it). */
  readonly placement?: Placement;
  /**
   * Kernel tuning as JSON over the adapter's own (`webddp train --tuning`): every run of the page
   * uses it (kernel comparisons; the browser tests' quick-to-compile kernels on SwiftShader).
   */
  readonly tuning?: string;
  /** Parameters the page does not know (reported, not silently dropped). */
  readonly unknown: readonly string[];
}

export function readParams(search: string): PageParams {
  const q = new URLSearchParams(search);
  const values: Record<string, unknown> = {};
  const unknown: string[] = [];
  const life: Partial<Record<LifeKey, boolean | number>> = {};
  let testLimit: number | undefined;
  let autostart = true;
  let fault: string | undefined;
  let lesson: string | undefined;
  let placement: Placement | undefined;
  let tuning: string | undefined;
  for (const [k, raw] of q) {
    const spec = FIELDS.find((f) => f.key === k);
    if (spec) {
      values[k as FieldKey] =
        spec.kind === 'check'
          ? raw === '1' || raw === 'true'
          : spec.kind === 'select' || spec.kind === 'text'
            ? raw
            : Number(raw);
    } else if (isLifeKey(k)) life[k] = parseLifeParam(k, raw);
    else if (k === 'testLimit') testLimit = Number(raw);
    else if (k === 'lesson') lesson = raw;
    else if (k === 'lang')
      continue; // read by ./i18n/
    else if (k === 'fault') fault = raw;
    else if (k === 'placement' && (raw === 'own-devices' || raw === 'shared-device')) placement = raw;
    else if (k === 'placement')
      unknown.push(k); // not a placement: reported, not dropped
    else if (k === 'autostart') autostart = raw !== '0' && raw !== 'false';
    else if (k === 'tuning' && isTuningObject(raw)) tuning = raw;
    else if (k === 'tuning')
      unknown.push(k); // not a JSON object: reported, never sent to a worker
    else unknown.push(k);
  }
  return {
    values,
    life,
    ...(testLimit !== undefined ? { testLimit } : {}),
    ...(fault !== undefined ? { fault } : {}),
    ...(lesson !== undefined ? { lesson } : {}),
    ...(placement !== undefined ? { placement } : {}),
    ...(tuning !== undefined ? { tuning } : {}),
    autostart,
    unknown,
  };
}

/** Whether `raw` is a JSON object (the workers check its fields as `webddp train --tuning` does). */
function isTuningObject(raw: string): boolean {
  const r = parseJson(raw);
  return r.ok && isJsonObject(r.value);
}
