// The training settings form: labelled controls, each checked on every edit by validateConfig (the
// same rules the CLI and the workers use); a bad value is marked at its control with the message,
// and the form reports no config at all while any value is bad, so nothing invalid reaches a worker.
// The controls beyond the basics sit under "More training controls", opened when one of them is
// set or wrong. The schedule is typed as the CLI's --schedule value and parsed the same way.
import type { TrainConfig } from '../../config.ts';
import { validateConfig } from '../../parallel/index.ts';
import { parseScheduleFlag } from '../../schedule/flag.ts';
import { h } from '../dom.ts';
import { localizeIssue, t } from '../i18n/index.ts';
import { FIELDS, fieldHint, fieldLabel, optionText, type FieldSpec } from './config-fields.ts';
import type { FieldKey, FormValues } from './field-key.ts';

interface Control {
  readonly spec: FieldSpec;
  readonly input: HTMLInputElement | HTMLSelectElement;
  readonly row: HTMLElement;
  readonly error: HTMLElement;
}

/** A form value as its control shows it. */
function shown(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean' ? String(value) : '';
}

export class ConfigForm {
  readonly element: HTMLFieldSetElement;
  private readonly more: HTMLDetailsElement;
  private readonly controls = new Map<FieldKey, Control>();
  private readonly listeners: (() => void)[] = [];
  /** The config as of the last edit (null while a value is bad). */
  private current: TrainConfig | null = null;
  /** Settings with no control here that a DeepSpeed config set (betas, loss scaling, ...). */
  private extra: Partial<TrainConfig> = {};

  /** `fixed` are settings the form does not show (e.g. testLimit, checkEvery), merged in. */
  constructor(
    initial: FormValues,
    private readonly fixed: Partial<TrainConfig> = {},
  ) {
    this.element = h('fieldset', { class: 'config' }, h('legend', {}, t().form.legend));
    this.more = h('details', { class: 'more-controls' }, h('summary', {}, t().form.more));
    for (const spec of FIELDS) (spec.more ? this.more : this.element).append(this.build(spec, initial[spec.key]));
    this.more.append(h('p', { class: 'hint', id: 'cfg-fp16-note' }, t().form.fp16Pending));
    this.element.append(this.more);
    this.current = this.validate();
  }

  /** Opens "More training controls" when any of `values` is one of them (a link or a lesson set it). */
  showMoreFor(values: FormValues): void {
    if (FIELDS.some((f) => f.more && values[f.key] !== undefined)) this.more.open = true;
  }

  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** The validated config, or null while any control holds a bad value. */
  config(): TrainConfig | null {
    return this.current;
  }

  /** The values of the controls, as the page address carries them. */
  values(): Record<FieldKey, string> {
    const out = {} as Record<FieldKey, string>;
    for (const [key, c] of this.controls)
      out[key] =
        c.input instanceof HTMLInputElement && c.input.type === 'checkbox'
          ? c.input.checked
            ? '1'
            : '0'
          : c.input.value;
    return out;
  }

  /** Puts values into the controls (a lesson, a DeepSpeed config) and checks them; `extra`: settings without a control. */
  setValues(values: FormValues, extra: Partial<TrainConfig> = {}): void {
    for (const [key, value] of Object.entries(values) as [FieldKey, unknown][]) {
      const c = this.controls.get(key);
      if (!c) continue;
      if (c.input instanceof HTMLInputElement && c.input.type === 'checkbox') c.input.checked = value === true;
      else c.input.value = shown(value);
    }
    this.extra = extra;
    this.changed();
  }

  setDisabled(disabled: boolean): void {
    for (const c of this.controls.values()) c.input.disabled = disabled;
  }

  private build(spec: FieldSpec, value: unknown): HTMLElement {
    const id = `cfg-${spec.key}`;
    const error = h('p', { class: 'error', id: `${id}-error`, role: 'alert', hidden: true });
    const hintText = fieldHint(spec.key);
    const hint = hintText ? h('p', { class: 'hint', id: `${id}-hint` }, hintText) : null;
    const described = [hint ? `${id}-hint` : '', `${id}-error`, spec.key === 'fp16' ? 'cfg-fp16-note' : '']
      .filter(Boolean)
      .join(' ');
    let input: HTMLInputElement | HTMLSelectElement;
    if (spec.kind === 'select') {
      input = h(
        'select',
        { id, name: spec.key, 'aria-describedby': described },
        ...(spec.options ?? []).map((o) => h('option', { value: o }, optionText(spec.key, o))),
      );
      input.value = shown(value);
    } else if (spec.kind === 'check') {
      input = h('input', { id, name: spec.key, type: 'checkbox', 'aria-describedby': described });
      input.checked = value === true;
    } else if (spec.kind === 'text') {
      input = h('input', {
        id,
        name: spec.key,
        type: 'text',
        spellcheck: 'false',
        autocomplete: 'off',
        'aria-describedby': described,
      });
      input.value = shown(value);
    } else {
      input = h('input', {
        id,
        name: spec.key,
        type: 'number',
        inputmode: spec.kind === 'int' ? 'numeric' : 'decimal',
        min: spec.min,
        max: spec.max,
        step: spec.step ?? '1',
        'aria-describedby': described,
        required: true,
      });
      input.value = shown(value);
    }
    input.addEventListener(spec.kind === 'check' || spec.kind === 'select' ? 'change' : 'input', () => this.changed());
    const label = h('label', { for: id }, fieldLabel(spec.key));
    const row =
      spec.kind === 'check'
        ? h('div', { class: 'field check' }, input, label, hint, error)
        : h(
            'div',
            { class: spec.kind === 'select' || spec.kind === 'text' ? 'field wide' : 'field' },
            label,
            input,
            hint,
            error,
          );
    this.controls.set(spec.key, { spec, input, row, error });
    return row;
  }

  private changed(): void {
    this.current = this.validate();
    for (const cb of this.listeners) cb();
  }

  /** Reads every control, shows each problem at its control, returns the config when all are good. */
  private validate(): TrainConfig | null {
    const values: Record<string, unknown> = {};
    const local = new Map<FieldKey, string>();
    for (const [key, c] of this.controls) {
      const raw = c.input instanceof HTMLInputElement && c.input.type === 'checkbox' ? c.input.checked : c.input.value;
      if (c.spec.kind === 'int' || c.spec.kind === 'float') {
        const text = String(raw).trim();
        const n = Number(text);
        if (text === '' || !Number.isFinite(n)) local.set(key, t().form.enterNumber(fieldLabel(key)));
        values[key] = n;
      } else if (c.spec.kind === 'text') {
        const text = String(raw).trim();
        if (text === '' || text === 'none') values[key] = 'none';
        else {
          const r = parseScheduleFlag('schedule', text);
          if (r.ok) values[key] = r.config;
          else local.set(key, t().form.scheduleProblem(r.issues.join('; ')));
        }
      } else values[key] = raw;
    }
    const when = { mode: values.mode as never, optimizer: String(values.optimizer) };
    for (const c of this.controls.values()) c.row.hidden = c.spec.when !== undefined && !c.spec.when(when);
    const result = validateConfig({ ...this.fixed, ...this.extra, ...values });
    const problems = new Map(local);
    if (!result.ok) {
      for (const issue of result.issues) {
        const key = issue.field as FieldKey;
        const message = localizeIssue(issue.message, (f) =>
          this.controls.has(f as FieldKey) ? fieldLabel(f as FieldKey) : f,
        );
        if (this.controls.has(key) && !problems.has(key)) problems.set(key, message);
        else if (!this.controls.has(key)) problems.set('mode', message);
      }
    }
    for (const [key, c] of this.controls) {
      const msg = problems.get(key);
      c.error.hidden = msg === undefined;
      c.error.textContent = msg ?? '';
      c.input.setAttribute('aria-invalid', msg === undefined ? 'false' : 'true');
      if (msg !== undefined && c.spec.more) this.more.open = true;
    }
    return problems.size === 0 && result.ok ? result.config : null;
  }
}
