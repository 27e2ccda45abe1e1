// The ZeRO memory calculator beside the measured bars: the paper's per-rank model states
// (src/parallel/zero/memory-model.ts) first checked against what this run measured for SimpleCNN
// (its mode as a stage, fp32, its optimizer), then for a model size the user types (7B on
// 4 x 80 GB, for example), every stage with a plain "fits" or "does not fit".
import type { TrainConfig } from '../../config.ts';
import type { MemorySnapshot } from '../../gpu/memory.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import {
  parseParamCount,
  zeroModelStates,
  type ModelStates,
  type OptimizerKind,
  type Precision,
  type ZeroStage,
} from '../../parallel/zero/memory-model.ts';
import type { TrainEvent } from '../../runtime/events.ts';
import { MODE_SHORT } from '../controls/config-fields.ts';
import { h } from '../dom.ts';
import { bytes } from '../format.ts';
import { t } from '../i18n/index.ts';
import type { View } from './view.ts';

const STAGES: readonly ZeroStage[] = [0, 1, 2, 3];
const STATES = ['parameters', 'gradients', 'optimizer'] as const;

/** The ZeRO stage a ring mode is (DDP = 0), or null for DataParallel's star. */
function stageOf(c: TrainConfig): ZeroStage | null {
  return PARALLEL_MODES[c.mode].zeroStage;
}

function optimizerOf(c: TrainConfig): OptimizerKind {
  return c.optimizer === 'sgd' ? (c.momentum > 0 ? 'sgd-momentum' : 'sgd') : 'adam';
}

/** Decimal gigabytes, as the ZeRO paper counts them. */
const gb = (n: number) => `${(n / 1e9).toFixed(n >= 1e11 ? 0 : 1)} GB`;

export class ZeroCalcView implements View {
  // Both scroll sideways on a phone, so they take the keyboard focus (arrow keys scroll them).
  private readonly measuredEl = h('div', { class: 'calc-measured', tabindex: 0 });
  private readonly params = h('input', { id: 'calc-params', type: 'text', value: '7B', spellcheck: 'false' });
  private readonly ranks = h('input', { id: 'calc-ranks', type: 'number', min: 1, max: 100000, value: 4 });
  private readonly memory = h('input', { id: 'calc-gb', type: 'number', min: 1, step: 'any', value: 80 });
  private readonly precision: HTMLSelectElement;
  private readonly optimizer: HTMLSelectElement;
  private readonly out = h('div', { class: 'calc-out', role: 'status', tabindex: 0 });
  private run: { config: TrainConfig; params: number } | null = null;
  private measured: MemorySnapshot | null = null;
  private dirty = true;

  constructor(body: HTMLElement) {
    const w = t().calc;
    this.precision = h(
      'select',
      { id: 'calc-precision' },
      h('option', { value: 'fp16' }, w.fp16),
      h('option', { value: 'bf16' }, w.bf16),
      h('option', { value: 'fp32' }, w.fp32),
    );
    this.optimizer = h(
      'select',
      { id: 'calc-optimizer' },
      h('option', { value: 'adam' }, w.adam),
      h('option', { value: 'sgd-momentum' }, w.sgdMomentum),
      h('option', { value: 'sgd' }, w.sgdPlain),
    );
    const field = (id: string, label: string, input: HTMLElement, hint?: string) =>
      h(
        'div',
        { class: 'field wide' },
        h('label', { for: id }, label),
        input,
        hint ? h('p', { class: 'hint' }, hint) : null,
      );
    body.append(
      h(
        'div',
        { class: 'calc' },
        h('h3', {}, w.measured),
        this.measuredEl,
        h(
          'div',
          { class: 'calc-inputs' },
          field('calc-params', w.params, this.params, w.paramsHint),
          field('calc-ranks', w.ranks, this.ranks),
          field('calc-gb', w.gpuMemory, this.memory),
          field('calc-precision', w.precision, this.precision),
          field('calc-optimizer', w.optimizer, this.optimizer),
        ),
        this.out,
        h('p', { class: 'hint' }, w.fitsNote),
      ),
    );
    for (const el of [this.params, this.ranks, this.memory]) el.addEventListener('input', () => this.compute());
    for (const el of [this.precision, this.optimizer]) el.addEventListener('change', () => this.compute());
    this.compute();
    this.render();
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') {
      this.run = { config: e.config, params: e.ranks[0]?.params ?? 0 };
      this.measured = null;
      this.dirty = true;
    } else if ((e.type === 'step' || e.type === 'epoch') && e.workers[0]) {
      this.measured = e.workers[0].memory;
      this.dirty = true;
    }
  }

  render(): boolean {
    if (!this.dirty) return false;
    this.dirty = false;
    const w = t().calc;
    const r = this.run;
    const stage = r ? stageOf(r.config) : null;
    if (!r || !this.measured || stage === null) {
      this.measuredEl.replaceChildren(h('p', { class: 'empty' }, w.noRun));
      return false;
    }
    const precision: Precision = r.config.bf16 ? 'bf16' : r.config.fp16 ? 'fp16' : 'fp32';
    const f = zeroModelStates(r.params, r.config.workers, stage, precision, optimizerOf(r.config));
    const m = this.measured;
    this.measuredEl.replaceChildren(
      h(
        'p',
        {},
        w.measuredIntro(MODE_SHORT[r.config.mode], r.config.workers, r.params.toLocaleString('en-US'), precision),
      ),
      table(
        [w.category, w.formula, w.measuredCol, w.diffCol],
        STATES.map((s) => [
          t().memory.categories[s],
          bytes(f[s]),
          bytes(m.byCategory[s].peak),
          bytes(m.byCategory[s].peak - f[s]),
        ]),
        'calc-check',
      ),
      h('p', { class: 'hint' }, precision === 'fp32' ? w.diffNote : `${w.diffNote} ${w.diffNoteHalf}`),
    );
    return false;
  }

  reset(): void {
    this.run = null;
    this.measured = null;
    this.dirty = true;
  }

  private compute(): void {
    const w = t().calc;
    const p = parseParamCount(this.params.value);
    const n = Number(this.ranks.value);
    const cap = Number(this.memory.value) * 1e9;
    const bad =
      p === null
        ? w.badParams(this.params.value)
        : !(Number.isInteger(n) && n >= 1)
          ? w.badNumber(w.ranks)
          : !(cap > 0)
            ? w.badNumber(w.gpuMemory)
            : null;
    this.params.setAttribute('aria-invalid', String(p === null));
    if (bad !== null || p === null) {
      this.out.replaceChildren(h('p', { class: 'error' }, bad ?? ''));
      return;
    }
    const precision = this.precision.value as Precision;
    const optimizer = this.optimizer.value as OptimizerKind;
    const rows = STAGES.map((s) => ({ s, m: zeroModelStates(p, n, s, precision, optimizer) }));
    const verdict = (m: ModelStates) => (m.total <= cap ? w.fits(gb(m.total), gb(cap)) : w.noFit(gb(m.total), gb(cap)));
    this.out.replaceChildren(
      table(
        [w.stage, ...STATES.map((s) => t().memory.categories[s]), w.total, ''],
        rows.map(({ s, m }) => [
          w.stageNames[s] ?? String(s),
          gb(m.parameters),
          gb(m.gradients),
          gb(m.optimizer),
          gb(m.total),
          verdict(m),
        ]),
        'calc-table',
        rows.map(({ m }) => (m.total <= cap ? 'fits' : 'no-fit')),
      ),
    );
  }
}

/** A table with a header row; `marks` become each body row's data-fit. */
function table(head: readonly string[], rows: readonly (readonly string[])[], cls: string, marks?: readonly string[]) {
  return h(
    'table',
    { class: `mem-table ${cls}` },
    h('thead', {}, h('tr', {}, ...head.map((x) => h('th', { scope: 'col' }, x)))),
    h(
      'tbody',
      {},
      ...rows.map((r, i) =>
        h(
          'tr',
          { 'data-fit': marks?.[i] },
          ...r.map((x, j) => (j === 0 ? h('th', { scope: 'row' }, x) : h('td', {}, x))),
        ),
      ),
    ),
  );
}
