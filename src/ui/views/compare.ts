// Compare: the same configuration trained for a few steps in two modes, one after the other, and
// every worker's measured memory side by side on one scale, like the table of DataParallel's
// per-GPU memory (38/22/21/20 GB on 4 GPUs) that motivates DDP.
import { MODES, type Mode, type TrainConfig } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import { imbalance, runComparison, type CompareProgress, type ModeResult } from '../compare-runner.ts';
import { MODE_NAMES, MODE_SHORT } from '../controls/config-fields.ts';
import { h } from '../dom.ts';
import { bytes, duration } from '../format.ts';
import type { Session } from '../session.ts';
import { categoryLegend, memoryColumn, memoryTable } from './memory-bar.ts';
import { workerRole } from './memory.ts';

export interface CompareHost {
  /** The form's config, or null (with the form showing why) while a value is bad. */
  config(): TrainConfig | null;
  /** The dataset to train on, imported if needed. */
  dataset(): Promise<string>;
  /** Locks the rest of the page while the comparison runs (one run at a time: the workers share a GPU). */
  busy(on: boolean): void;
}

function modeSelect(id: string, label: string, value: Mode): { row: HTMLElement; select: HTMLSelectElement } {
  const select = h('select', { id }, ...MODES.map((m) => h('option', { value: m }, MODE_NAMES[m])));
  select.value = value;
  return { row: h('div', { class: 'field' }, h('label', { for: id }, label), select), select };
}

export class CompareView {
  readonly results: ModeResult[] = [];
  private readonly a = modeSelect('cmp-a', 'First mode', 'dp');
  private readonly b = modeSelect('cmp-b', 'Second mode', 'ddp');
  private readonly steps = h('input', { id: 'cmp-steps', type: 'number', min: 1, max: 50, value: 3, required: true });
  private readonly runButton = h('button', { type: 'button', class: 'primary', id: 'cmp-run' }, 'Run comparison');
  private readonly stopButton = h('button', { type: 'button', id: 'cmp-stop', disabled: true }, 'Stop');
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
      h('div', { class: 'field' }, h('label', { for: 'cmp-steps' }, 'Steps each'), this.steps),
      h('div', { class: 'buttons' }, this.runButton, this.stopButton),
    );
    this.root = h('div', { class: 'compare', 'data-state': 'idle' }, controls, this.status, categoryLegend(), this.out);
    body.append(this.root);
    this.out.append(
      h('p', { class: 'empty' }, 'Uses the settings on the left (workers, batch, optimizer, width) in both modes.'),
    );
    this.runButton.addEventListener('click', () => void this.run());
    this.stopButton.addEventListener('click', () => {
      this.stopped = true;
      this.session?.stop();
    });
  }

  setDisabled(disabled: boolean): void {
    if (this.root.dataset.state !== 'running') this.runButton.disabled = disabled;
  }

  async run(): Promise<void> {
    const base = this.host.config();
    const steps = Number(this.steps.value);
    if (!base) {
      this.say('Fix the settings marked on the left first.', true);
      return;
    }
    if (!Number.isInteger(steps) || steps < 1 || steps > 50) {
      this.say('Steps each must be a whole number from 1 to 50.', true);
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
          ? `${MODE_SHORT[failed.mode]} failed: ${failed.error ?? ''}`
          : this.stopped
            ? 'Stopped.'
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
    this.say(
      `${p.index + 1}/${n}: ${MODE_NAMES[p.mode]}, step ${p.step}/${p.steps}${p.detail ? ` (${p.detail})` : ''}`,
      false,
    );
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
        return `${MODE_SHORT[r.mode]}: worker 0 peaks at ${bytes(peak0)}, ${x.toFixed(2)}× the others' mean`;
      })
      .join(' · ');
  }

  private draw(): void {
    const scale = Math.max(1, ...this.results.flatMap((r) => r.workers.map((s) => s.peak)));
    const columns = this.results.map((r) => {
      const cols = r.workers.map((s, rank) => {
        const col = memoryColumn(`worker ${rank}`, workerRole(r.mode, rank));
        col.update(s, scale);
        col.element.dataset.rank = String(rank);
        return col.element;
      });
      const c = r.config;
      return h(
        'div',
        { class: 'compare-col', 'data-mode': r.mode },
        h('h3', {}, MODE_NAMES[r.mode]),
        h(
          'p',
          { class: 'hint' },
          `${c.workers} workers · batch ${c.batchSize}/worker${PARALLEL_MODES[r.mode].usesGpu0Bsz ? ` (gpu0_bsz ${c.gpu0Bsz})` : ''} · ${c.optimizer} · ${r.steps} steps · ${duration(r.meanStepMs)}/step`,
        ),
        h('div', { class: 'col-chart' }, ...cols),
        h(
          'p',
          { class: 'hint' },
          r.workers.length > 1 ? `worker 0: ${imbalance(r.workers).toFixed(2)}× the others' mean peak` : '',
        ),
        h(
          'details',
          {},
          h('summary', {}, 'Numbers'),
          memoryTable(
            `${MODE_SHORT[r.mode]}: bytes at the end, by category`,
            r.workers.map((s, rank) => ({ name: `worker ${rank}`, s })),
          ),
        ),
      );
    });
    this.out.replaceChildren(h('div', { class: 'compare-grid' }, ...columns));
  }
}
