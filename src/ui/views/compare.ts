// Compare: the same configuration trained for a few steps in two modes, one after the other, and
// every worker's measured memory side by side on one scale, like the table of DataParallel's
// per-GPU memory (38/22/21/20 GB on 4 GPUs) that motivates DDP.
import { MODES, type Mode, type TrainConfig } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import { imbalance, runComparison, type CompareProgress, type ModeResult } from '../compare-runner.ts';
import { MODE_SHORT, modeName } from '../controls/config-fields.ts';
import { t } from '../i18n/index.ts';
import { h } from '../dom.ts';
import { bytes, duration } from '../format.ts';
import type { Session } from '../session.ts';
import { categoryLegend, memoryColumn, memoryTable } from './memory-bar.ts';
import { workerRole } from './memory.ts';
import type { CompareSummary } from '../page-api.ts';

export interface CompareHost {
  /** The form's config, or null (with the form showing why) while a value is bad. */
  config(): TrainConfig | null;
  /** The dataset to train on, imported if needed. */
  dataset(): Promise<string>;
  /** Locks the rest of the page while the comparison runs (one run at a time: the workers share a GPU). */
  busy(on: boolean): void;
}

function modeSelect(id: string, label: string, value: Mode): { row: HTMLElement; select: HTMLSelectElement } {
  const select = h('select', { id }, ...MODES.map((m) => h('option', { value: m }, modeName(m))));
  select.value = value;
  return { row: h('div', { class: 'field wide' }, h('label', { for: id }, label), select), select };
}

export class CompareView {
  readonly results: ModeResult[] = [];
  private readonly a = modeSelect('cmp-a', t().compare.first, 'dp');
  private readonly b = modeSelect('cmp-b', t().compare.second, 'ddp');
  private readonly steps = h('input', { id: 'cmp-steps', type: 'number', min: 1, max: 50, value: 3, required: true });
  private readonly runButton = h('button', { type: 'button', class: 'primary', id: 'cmp-run' }, t().compare.run);
  private readonly stopButton = h('button', { type: 'button', id: 'cmp-stop', disabled: true }, t().compare.stop);
  private readonly status = h('p', { class: 'status', role: 'status' });
  private readonly out = h('div', { class: 'compare-out' });
  private readonly root: HTMLElement;
  private session: Session | null = null;
  private stopped = false;

  constructor(
    body: HTMLElement,
    private readonly host: CompareHost,
  ) {
    const controls = h(
      'div',
      { class: 'compare-controls' },
      this.a.row,
      this.b.row,
      h('div', { class: 'field' }, h('label', { for: 'cmp-steps' }, t().compare.steps), this.steps),
      h('div', { class: 'buttons' }, this.runButton, this.stopButton),
    );
    this.root = h('div', { class: 'compare', 'data-state': 'idle' }, controls, this.status, categoryLegend(), this.out);
    body.append(this.root);
    this.out.append(h('p', { class: 'empty' }, t().compare.empty));
    this.runButton.addEventListener('click', () => void this.run());
    this.stopButton.addEventListener('click', () => {
      this.stopped = true;
      this.session?.stop();
    });
  }

  /** The last comparison as plain data (window.webddpPage.compare()). */
  summaries(): CompareSummary[] {
    return this.results.map((r) => ({
      mode: r.mode,
      workers: r.config.workers,
      steps: r.steps,
      ...(r.error ? { error: r.error } : {}),
      peaks: r.workers.map((w) => w.peak),
      memory: r.workers,
      imbalance: imbalance(r.workers),
    }));
  }

  setDisabled(disabled: boolean): void {
    if (this.root.dataset.state !== 'running') this.runButton.disabled = disabled;
  }

  async run(): Promise<void> {
    const base = this.host.config();
    const steps = Number(this.steps.value);
    if (!base) {
      this.say(t().compare.fixFirst, true);
      return;
    }
    if (!Number.isInteger(steps) || steps < 1 || steps > 50) {
      this.say(t().compare.badSteps, true);
      this.steps.focus();
      return;
    }
    const modes = [this.a.select.value as Mode, this.b.select.value as Mode];
    this.stopped = false;
    this.root.dataset.state = 'running';
    this.runButton.disabled = true;
    this.stopButton.disabled = false;
    this.host.busy(true);
    try {
      const dataset = await this.host.dataset();
      const results = await runComparison(
        base,
        modes,
        steps,
        dataset,
        (p) => this.progress(p, modes.length),
        (s) => {
          this.session = s;
        },
      );
      this.results.splice(0, this.results.length, ...results);
      this.draw();
      const failed = results.find((r) => r.error);
      this.say(
        failed
          ? t().compare.failed(MODE_SHORT[failed.mode], failed.error ?? '')
          : this.stopped
            ? t().compare.stopped
            : this.summary(),
        failed !== undefined,
      );
      this.root.dataset.state = failed ? 'error' : 'done';
    } catch (e) {
      this.say(e instanceof Error ? e.message : String(e), true);
      this.root.dataset.state = 'error';
    } finally {
      this.runButton.disabled = false;
      this.stopButton.disabled = true;
      this.host.busy(false);
    }
  }

  private progress(p: CompareProgress, n: number): void {
    this.say(t().compare.progress(p.index + 1, n, modeName(p.mode), p.step, p.steps, p.detail ?? ''), false);
  }

  private say(text: string, error: boolean): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
  }

  private summary(): string {
    return this.results
      .map((r) => {
        const x = imbalance(r.workers);
        const peak0 = r.workers[0]?.peak ?? 0;
        return t().compare.summary(MODE_SHORT[r.mode], bytes(peak0), x.toFixed(2));
      })
      .join(' · ');
  }

  private draw(): void {
    const scale = Math.max(1, ...this.results.flatMap((r) => r.workers.map((s) => s.peak)));
    const columns = this.results.map((r) => {
      const cols = r.workers.map((s, rank) => {
        const col = memoryColumn(t().memory.worker(rank), workerRole(r.mode, rank));
        col.update(s, scale);
        col.element.dataset.rank = String(rank);
        return col.element;
      });
      const c = r.config;
      return h(
        'div',
        { class: 'compare-col', 'data-mode': r.mode },
        h('h3', {}, modeName(r.mode)),
        h(
          'p',
          { class: 'hint' },
          t().compare.colHint(
            c.workers,
            c.batchSize,
            PARALLEL_MODES[r.mode].usesGpu0Bsz ? t().compare.gpu0(c.gpu0Bsz) : '',
            c.optimizer,
            r.steps,
            duration(r.meanStepMs),
          ),
        ),
        h('div', { class: 'col-chart' }, ...cols),
        h('p', { class: 'hint' }, r.workers.length > 1 ? t().compare.imbalance(imbalance(r.workers).toFixed(2)) : ''),
        h(
          'details',
          {},
          h('summary', {}, t().compare.numbers),
          memoryTable(
            t().compare.tableCaption(MODE_SHORT[r.mode]),
            r.workers.map((s, rank) => ({ name: t().memory.worker(rank), s })),
          ),
        ),
      );
    });
    this.out.replaceChildren(h('div', { class: 'compare-grid' }, ...columns));
  }
}
