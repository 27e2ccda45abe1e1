// The progress block of an import: a <progress> bar (determinate when the size is known), what
// the importer is doing, how much it has read and stored, and a Cancel button. Updates are
// coalesced to one per animation frame, since the importer reports every chunk it reads.
import type { ImportProgress } from '../../data/import-types.ts';
import { h } from '../dom.ts';
import { bytes } from '../format.ts';
import { count } from './dataset-import.ts';
import { t } from '../i18n/index.ts';

let nextId = 0;

export class ImportProgressView {
  readonly element: HTMLDivElement;
  readonly cancel: HTMLButtonElement;
  private readonly bar: HTMLProgressElement;
  private readonly phase: HTMLElement;
  private readonly detail: HTMLElement;
  private pending: ImportProgress | undefined;
  private frame = 0;

  constructor() {
    const id = `ds-progress-${++nextId}`;
    this.bar = h('progress', { 'aria-labelledby': `${id}-phase`, 'aria-describedby': `${id}-detail` });
    this.phase = h('span', { class: 'ds-phase', id: `${id}-phase` });
    this.detail = h('span', { class: 'ds-detail', id: `${id}-detail` });
    this.cancel = h('button', { type: 'button', class: 'ds-cancel' }, t().dataset.cancel);
    this.element = h(
      'div',
      { class: 'ds-progress', hidden: true },
      h('div', { class: 'ds-progress-row' }, this.bar, this.cancel),
      h('p', { class: 'ds-progress-text' }, this.phase, this.detail),
    );
  }

  /** Shows the block for a new import: an indeterminate bar and `what`. */
  start(what: string): void {
    this.pending = undefined;
    this.bar.removeAttribute('value');
    this.phase.textContent = t().dataset.starting;
    this.detail.textContent = what;
    this.cancel.disabled = false;
    this.element.hidden = false;
  }

  /** Takes a report (drawn at the next animation frame). */
  update(p: ImportProgress): void {
    this.pending = p;
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** Hides the block. */
  stop(): void {
    if (this.frame !== 0) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.pending = undefined;
    this.element.hidden = true;
  }

  private draw(): void {
    this.frame = 0;
    const p = this.pending;
    if (!p) return;
    const total = p.totalBytes;
    if (p.phase !== 'reading') {
      this.bar.max = 1;
      this.bar.value = 1;
    } else if (total !== undefined && total > 0) {
      this.bar.max = total;
      this.bar.value = Math.min(p.bytesRead, total);
    } else {
      this.bar.removeAttribute('value');
    }
    const w = t().dataset;
    this.phase.textContent = p.phase === 'reading' ? w.reading : p.phase === 'committing' ? w.committing : w.done;
    const amount =
      total !== undefined && total > 0
        ? w.amountOf(bytes(p.bytesRead), bytes(total), Math.floor((100 * p.bytesRead) / total))
        : w.amountRead(bytes(p.bytesRead));
    const parts = [amount, w.stored(count(p.records))];
    if (p.file !== undefined) parts.push(p.file);
    this.detail.textContent = parts.join(' · ');
    if (p.phase !== 'reading') this.cancel.disabled = true; // past the point of no return
  }
}
