// Keeps the page address in step with the settings, so the address is always a link to the run on
// the screen (a teacher copies it to share a prepared run or a lesson): every form value that
// differs from the page's defaults, the open lesson, and the page parameters the form does not
// show (lang, testLimit, fault, autostart, tuning), and the checkpoint and restart settings.
import type { FieldKey, FormValues } from './controls/field-key.ts';
import { lifeAddress, type LifeKey } from './controls/life-settings.ts';

export interface AddressState {
  /** The controls' values as text (checkboxes '1'/'0'). */
  readonly values: Readonly<Record<FieldKey, string>>;
  readonly defaults: FormValues;
  /** Checkpoints and restarts, as text (those at their defaults are left out). */
  readonly life?: Readonly<Record<LifeKey, string>>;
  readonly lesson: string | null;
  readonly testLimit?: number;
  readonly fault?: string;
  /** Where the workers run; only `shared-device` goes into the address. */
  readonly placement?: string;
}

/** The query string for `state`, keeping `lang`, `autostart` and `tuning` from `current`. */
export function addressQuery(current: string, state: AddressState): string {
  const before = new URLSearchParams(current);
  const q = new URLSearchParams();
  for (const k of ['lang', 'autostart', 'tuning']) {
    const v = before.get(k);
    if (v !== null) q.set(k, v);
  }
  if (state.lesson) q.set('lesson', state.lesson);
  for (const [key, text] of Object.entries(state.values) as [FieldKey, string][]) {
    const d = state.defaults[key];
    const dText = typeof d === 'boolean' ? (d ? '1' : '0') : d === undefined ? '' : String(d);
    if (text !== dText) q.set(key, text);
  }
  for (const [k, v] of state.life ? lifeAddress(state.life) : []) q.set(k, v);
  if (state.testLimit !== undefined) q.set('testLimit', String(state.testLimit));
  if (state.fault !== undefined) q.set('fault', state.fault);
  if (state.placement === 'shared-device') q.set('placement', state.placement);
  const s = q.toString();
  return s ? `?${s}` : '';
}
