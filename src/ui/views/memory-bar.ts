// One worker's memory as a horizontal bar: what is allocated now, stacked by category, over a
// lighter bar reaching the peak (torch.cuda.max_memory_allocated), all on a shared scale so bars of
// different workers (and of two compared runs) can be read against each other.
import type { MemorySnapshot } from '../../gpu/memory.ts';
import { MEMORY_CATEGORIES } from '../../memory-categories.ts';
import { h } from '../dom.ts';
import { bytes } from '../format.ts';
import { t } from '../i18n/index.ts';
import { CATEGORY_COLORS, categoryLabel } from '../palette.ts';

export interface BarRow {
  readonly element: HTMLElement;
  update(s: MemorySnapshot, scale: number): void;
}

/** One coloured segment per category and the hatched peak behind them; `size` sets a length along the bar. */
function stacked(size: 'width' | 'height'): { parts: Node[]; set(s: MemorySnapshot, scale: number): void } {
  const segments = MEMORY_CATEGORIES.map((c) => h('span', { class: 'seg', style: `background:${CATEGORY_COLORS[c]}` }));
  const peak = h('span', { class: 'peak' });
  return {
    parts: [peak, ...segments],
    set(s, scale) {
      const pc = (n: number) => `${scale > 0 ? Math.max(0, (100 * n) / scale) : 0}%`;
      MEMORY_CATEGORIES.forEach((c, i) => {
        const seg = segments[i];
        if (!seg) return;
        seg.style[size] = pc(s.byCategory[c].allocated);
        seg.title = t().memory.segTitle(
          categoryLabel(c),
          bytes(s.byCategory[c].allocated),
          bytes(s.byCategory[c].peak),
        );
      });
      peak.style[size] = pc(s.peak);
      peak.title = t().memory.peakTitle(bytes(s.peak));
    },
  };
}

/** The row: name, bar, "now / peak" text. `role` is e.g. "device 0: scatters, gathers, steps". */
export function memoryBar(name: string, role?: string): BarRow {
  const bar = stacked('width');
  const track = h('div', { class: 'track' }, ...bar.parts);
  const text = h('span', { class: 'mem-text' });
  const element = h(
    'div',
    { class: 'mem-row', role: 'group', 'aria-label': name },
    h('span', { class: 'mem-name' }, name, role ? h('small', {}, role) : null),
    track,
    text,
  );
  return {
    element,
    update(s, scale) {
      bar.set(s, scale);
      text.textContent = t().memory.rowText(bytes(s.allocated), bytes(s.peak));
      element.dataset.allocated = String(s.allocated);
      element.dataset.peak = String(s.peak);
      const parts = MEMORY_CATEGORIES.filter((c) => s.byCategory[c].allocated > 0)
        .map((c) => `${categoryLabel(c)} ${bytes(s.byCategory[c].allocated)}`)
        .join(', ');
      element.setAttribute('aria-label', t().memory.rowLabel(name, bytes(s.allocated), bytes(s.peak), parts));
    },
  };
}

/**
 * One worker as a vertical column (the compare view: a bar chart per mode, like the per-GPU memory
 * table of DataParallel): stacked by category, the peak as a hatched column behind, bytes on top.
 */
export function memoryColumn(name: string, role: string): BarRow {
  const bar = stacked('height');
  const value = h('span', { class: 'col-value' });
  const stack = h('div', { class: 'col-stack' }, ...bar.parts);
  const element = h(
    'div',
    { class: 'mem-col', role: 'group', 'aria-label': name, title: role },
    value,
    h('div', { class: 'col-track' }, stack),
    h('span', { class: 'col-name' }, name),
  );
  return {
    element,
    update(s, scale) {
      bar.set(s, scale);
      value.textContent = bytes(s.peak);
      element.dataset.allocated = String(s.allocated);
      element.dataset.peak = String(s.peak);
      element.setAttribute('aria-label', t().memory.colLabel(name, role, bytes(s.peak), bytes(s.allocated)));
    },
  };
}

/** The category legend shared by the memory and compare views. */
export function categoryLegend(): HTMLElement {
  return h(
    'div',
    { class: 'legend' },
    ...MEMORY_CATEGORIES.map((c) =>
      h('span', {}, h('span', { class: 'swatch', style: `background:${CATEGORY_COLORS[c]}` }), categoryLabel(c)),
    ),
    h('span', {}, h('span', { class: 'swatch peak-swatch' }), t().memory.peak),
  );
}

/** A table of every category's current and peak bytes per worker (the numbers behind the bars). */
export function memoryTable(caption: string, rows: readonly { name: string; s: MemorySnapshot }[]): HTMLTableElement {
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, t().memory.colWorker),
    ...MEMORY_CATEGORIES.map((c) => h('th', { scope: 'col' }, categoryLabel(c))),
    h('th', { scope: 'col' }, t().memory.colAllocated),
    h('th', { scope: 'col' }, t().memory.colPeak),
  );
  const body = rows.map(({ name, s }) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, name),
      ...MEMORY_CATEGORIES.map((c) => h('td', {}, bytes(s.byCategory[c].allocated))),
      h('td', {}, bytes(s.allocated)),
      h('td', {}, bytes(s.peak)),
    ),
  );
  return h('table', { class: 'mem-table' }, h('caption', {}, caption), h('thead', {}, head), h('tbody', {}, ...body));
}
