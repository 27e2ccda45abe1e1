// The training settings form: labelled controls, each checked on every edit by validateConfig (the
// same rules the CLI and the workers use); a bad value is marked at its control with the message,
// and the form reports no config at all while any value is bad, so nothing invalid reaches a worker.
import type { TrainConfig } from '../../config.ts';
import { validateConfig } from '../../parallel/index.ts';
import { h } from '../dom.ts';
import { FIELDS, type FieldKey, type FieldSpec, type FormValues } from './config-fields.ts';

interface Control {
  readonly spec: FieldSpec;
  readonly input: HTMLInputElement | HTMLSelectElement;
  readonly row: HTMLElement;
  readonly error: HTMLElement;
}

export class ConfigForm {
  readonly element: HTMLFieldSetElement;
  private readonly controls = new Map<FieldKey, Control>();
  private readonly listeners: (() => void)[] = [];
  /** The config as of the last edit (null while a value is bad). */
  private current: TrainConfig | null = null;

  /** `fixed` are settings the form does not show (e.g. testLimit, checkEvery), merged in. */
  constructor(
    initial: FormValues,
    private readonly fixed: Partial<TrainConfig> = {},
  ) {
    this.element = h('fieldset', { class: 'config' }, h('legend', {}, 'Training'));
    for (const spec of FIELDS) this.element.append(this.build(spec, initial[spec.key]));
    this.current = this.validate();
  }

  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** The validated config, or null while any control holds a bad value. */
  config(): TrainConfig | null {
    return this.current;
  }

  setDisabled(disabled: boolean): void {
    for (const c of this.controls.values()) c.input.disabled = disabled;
  }

  private build(spec: FieldSpec, value: unknown): HTMLElement {
    const id = `cfg-${spec.key}`;
    const error = h('p', { class: 'error', id: `${id}-error`, role: 'alert', hidden: true });
    const hint = spec.hint ? h('p', { class: 'hint', id: `${id}-hint` }, spec.hint) : null;
    const described = [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');
    let input: HTMLInputElement | HTMLSelectElement;
    if (spec.kind === 'select') {
      input = h(
        'select',
        { id, name: spec.key, 'aria-describedby': described },
        ...(spec.options ?? []).map((o) => h('option', { value: o.value }, o.text)),
      );
      input.value = String(value);
    } else if (spec.kind === 'check') {
      input = h('input', { id, name: spec.key, type: 'checkbox', 'aria-describedby': described });
      input.checked = value === true;
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
      input.value = String(value);
    }
    input.addEventListener(spec.kind === 'check' || spec.kind === 'select' ? 'change' : 'input', () => this.changed());
    const label = h('label', { for: id }, spec.label);
    const row =
      spec.kind === 'check'
        ? h('div', { class: 'field check' }, input, label, error)
        : h('div', { class: 'field' }, label, input, hint, error);
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
        if (text === '' || !Number.isFinite(n)) local.set(key, `${c.spec.label}: enter a number`);
        values[key] = n;
      } else values[key] = raw;
    }
    const mode = values.mode;
    for (const c of this.controls.values()) c.row.hidden = c.spec.when !== undefined && !c.spec.when(mode as never);
    const result = validateConfig({ ...this.fixed, ...values });
    const problems = new Map(local);
    if (!result.ok) {
      for (const issue of result.issues) {
        const key = issue.field as FieldKey;
        if (this.controls.has(key) && !problems.has(key)) problems.set(key, issue.message);
        else if (!this.controls.has(key)) problems.set('mode', issue.message);
      }
    }
    for (const [key, c] of this.controls) {
      const msg = problems.get(key);
      c.error.hidden = msg === undefined;
      c.error.textContent = msg ?? '';
      c.input.setAttribute('aria-invalid', msg === undefined ? 'false' : 'true');
    }
    return problems.size === 0 && result.ok ? result.config : null;
  }
}
