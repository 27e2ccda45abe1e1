// The DeepSpeed config panel: load a ds_config.json from a file or paste it, and apply it to the
// settings with DeepSpeed's semantics (src/deepspeed/: batch arithmetic over the form's worker
// count, optimizer, scheduler, fp16, ZeRO stage, clipping). What it sets is shown as a table; a
// config with unsupported or inconsistent keys is refused with every problem by its path, and the
// settings stay as they were.
import { DEEPSPEED_CONFIG, fileProblem } from './file-checks.ts';
import type { TrainConfig } from '../../config.ts';
import { parseDeepSpeedConfig, type DeepSpeedFields } from '../../deepspeed/config.ts';
import { parseConfigText } from '../../deepspeed/json-text.ts';
import type { LrScheduleConfig } from '../../schedule/types.ts';
import { h } from '../dom.ts';
import { docLinkOf, rich, t } from '../i18n/index.ts';
import type { FieldKey, FormValues } from './field-key.ts';

/** TrainConfig fields the form has a control for (the rest go in as settings without one). */
const FORM_KEYS: readonly FieldKey[] = [
  'mode',
  'batchSize',
  'optimizer',
  'lr',
  'gradAccum',
  'clipGradNorm',
  'momentum',
  'weightDecay',
  'schedule',
  'fp16',
  'bf16',
];

/** A schedule config as the form's text, `TYPE:name=value,...` (the CLI's --schedule syntax). */
export function scheduleText(s: LrScheduleConfig): string {
  const params = Object.entries(s.params).map(([k, v]) => `${k}=${String(v)}`);
  return params.length > 0 ? `${s.type}:${params.join(',')}` : s.type;
}

export interface DeepSpeedHost {
  /** The form's worker count (DeepSpeed's world size), or null while it is bad. */
  workers(): number | null;
  /** Puts the config's settings into the form. */
  apply(values: FormValues, extra: Partial<TrainConfig>): void;
}

export class DeepSpeedPanel {
  readonly element: HTMLFieldSetElement;
  private readonly file = h('input', { id: 'ds-file', type: 'file', accept: '.json,application/json' });
  private readonly text = h('textarea', { id: 'ds-text', rows: 6, spellcheck: 'false', class: 'ds-text' });
  private readonly applyButton = h('button', { type: 'button', id: 'ds-apply' }, t().deepspeed.apply);
  private readonly status = h('div', { class: 'status', id: 'ds-status', role: 'status' });
  private readonly shown = h('div', { class: 'ds-shown', tabindex: 0 });

  constructor(private readonly host: DeepSpeedHost) {
    const w = t().deepspeed;
    this.element = h(
      'fieldset',
      { class: 'deepspeed', 'data-state': 'none' },
      h('legend', {}, w.legend),
      h('p', { class: 'hint' }, ...rich(w.intro), ' ', docLinkOf('dsConfig')),
      h('div', { class: 'field wide' }, h('label', { for: 'ds-file' }, w.file), this.file),
      h('div', { class: 'field wide' }, h('label', { for: 'ds-text' }, w.paste), this.text),
      h('div', { class: 'buttons' }, this.applyButton),
      this.status,
      this.shown,
    );
    this.file.addEventListener('change', () => void this.load());
    this.applyButton.addEventListener('click', () => this.apply());
  }

  setDisabled(disabled: boolean): void {
    for (const el of [this.file, this.text, this.applyButton]) el.disabled = disabled;
  }

  private async load(): Promise<void> {
    const f = this.file.files?.[0];
    if (!f) return;
    const problem = fileProblem(f, DEEPSPEED_CONFIG);
    if (problem !== null) {
      this.file.value = '';
      return this.refuse([problem]);
    }
    this.text.value = await f.text();
    this.apply();
  }

  /** Parses the text and applies it, or shows every problem and changes nothing. */
  apply(): void {
    const w = t().deepspeed;
    const parsed = parseConfigText(this.text.value);
    if (!parsed.ok) return this.refuse([w.syntax(parsed.issue)]);
    const world = this.host.workers();
    if (world === null) return this.refuse([t().compare.fixFirst]);
    const r = parseDeepSpeedConfig(parsed.value, world);
    if (!r.ok) return this.refuse(r.issues);
    const fields: DeepSpeedFields = r.settings.fields;
    const values: Record<string, unknown> = {};
    const extra: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) {
      if (k === 'schedule') values[k] = v === 'none' ? '' : scheduleText(v as LrScheduleConfig);
      else if ((FORM_KEYS as readonly string[]).includes(k)) values[k] = v;
      else extra[k] = v;
    }
    this.host.apply(values, extra);
    const s = r.settings;
    this.say([w.applied(s.trainBatchSize, fields.batchSize ?? 0, fields.gradAccum ?? 1, world), ...s.notes], false);
    this.shown.replaceChildren(
      h(
        'table',
        { class: 'mem-table' },
        h('caption', {}, w.shown),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, w.field), h('th', { scope: 'col' }, w.value))),
        h(
          'tbody',
          {},
          ...Object.entries(fields).map(([k, v]) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, k),
              h(
                'td',
                {},
                k === 'schedule' && v !== 'none' ? scheduleText(v as LrScheduleConfig) : JSON.stringify(v),
                s.defaulted.includes(k as keyof TrainConfig) ? ` (${w.defaulted})` : '',
              ),
            ),
          ),
        ),
      ),
    );
    this.element.dataset.state = 'applied';
  }

  private refuse(issues: readonly string[]): void {
    this.say([t().deepspeed.refused, ...issues], true);
    this.shown.replaceChildren();
    this.element.dataset.state = 'refused';
  }

  private say(lines: readonly string[], error: boolean): void {
    this.status.replaceChildren(...lines.map((l) => h('p', {}, l)));
    this.status.classList.toggle('error', error);
  }
}
