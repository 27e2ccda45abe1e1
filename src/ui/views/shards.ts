// The shard view: which dataset indices each rank trains on this epoch, as PyTorch's
// DistributedSampler hands them out (the ranks report their real index lists at every epoch
// start), with padding made visible and the previous epoch kept for comparison.
import type { TrainConfig } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import type { TrainEvent } from '../../runtime/events.ts';
import { h } from '../dom.ts';
import { assign, drawGrid, layout, moved, type Assignment, type GridLayout, type GridShow } from './shards-model.ts';
import { gridLegend, headline, movedLine, note, paddingLine, rankLines, type ShardSettings } from './shards-text.ts';
import type { View } from './view.ts';
import './shards.css';
import { t } from '../i18n/index.ts';

export { shardsExplanation } from './shards-text.ts';

export class ShardsView implements View {
  private readonly root: HTMLDivElement;
  private readonly head = h('p', { class: 'shards-head' }, t().shards.empty);
  private readonly canvas = h('canvas', {
    class: 'shards-canvas',
    role: 'img',
    'aria-label': t().shards.gridEmpty,
  });
  private readonly hover = h('p', { class: 'shards-hover' });
  private readonly caption = h('p', { class: 'shards-caption' });
  private readonly legendSlot = h('div');
  private readonly buttons: Record<GridShow, HTMLButtonElement>;
  private readonly toggle: HTMLDivElement;
  private readonly movedText = h('p', { class: 'shards-moved' });
  private readonly padText = h('p', { class: 'shards-pad' });
  private readonly noteText = h('p', { class: 'shards-note' });
  private readonly list = h('ul', { class: 'shards-list' });
  private settings: ShardSettings = { shuffle: true, dropLast: false, seed: 0, dp: false };
  private incoming: Extract<TrainEvent, { type: 'epoch-start' }> | null = null;
  private cur: Assignment | null = null;
  private prev: Assignment | null = null;
  private show: GridShow = 'current';
  private grid: GridLayout | null = null;
  private width = 0;
  /** Share of the indices that changed rank between the last two epochs (NaN before the second). */
  movedShare = NaN;

  constructor(body: HTMLElement) {
    const button = (s: GridShow) =>
      h('button', { type: 'button', 'aria-pressed': s === 'current' ? 'true' : 'false' }, t().shards.show[s]);
    this.buttons = { current: button('current'), previous: button('previous'), moved: button('moved') };
    this.toggle = h(
      'div',
      { class: 'shards-toggle', role: 'group', 'aria-label': t().shards.groupLabel },
      t().shards.showLabel,
      ...Object.values(this.buttons),
    );
    for (const [s, b] of Object.entries(this.buttons) as [GridShow, HTMLButtonElement][])
      b.addEventListener('click', () => this.select(s));
    this.canvas.addEventListener('mousemove', (ev) => this.pointAt(ev.offsetX, ev.offsetY));
    this.canvas.addEventListener('mouseleave', () => {
      this.hover.textContent = t().shards.point;
    });
    this.root = h(
      'div',
      { class: 'shards-view', 'data-epoch': '', 'data-ranks': '0' },
      this.head,
      this.toggle,
      h('div', { class: 'shards-grid' }, this.canvas),
      this.hover,
      this.caption,
      this.legendSlot,
      this.movedText,
      this.padText,
      this.noteText,
      this.list,
    );
    body.append(this.root);
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(() => {
        if (this.cur && Math.abs(this.availableWidth() - this.width) > 24) this.draw();
      }).observe(this.root);
    }
    this.reset();
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') {
      this.reset();
      this.settings = settingsOf(e.config);
    } else if (e.type === 'epoch-start') {
      this.incoming = e;
    }
  }

  reset(): void {
    this.movedShare = NaN;
    this.incoming = null;
    this.cur = null;
    this.prev = null;
    this.grid = null;
    this.show = 'current';
    this.root.dataset.epoch = '';
    this.root.dataset.ranks = '0';
    this.head.textContent = t().shards.empty;
    for (const el of [this.hover, this.caption, this.movedText, this.padText, this.noteText]) el.textContent = '';
    this.legendSlot.replaceChildren();
    this.list.replaceChildren();
    this.canvas.hidden = true;
    this.toggle.hidden = true;
  }

  render(): boolean {
    const e = this.incoming;
    if (!e) return false;
    this.incoming = null;
    if (this.cur && this.cur.epoch !== e.epoch) this.prev = this.cur;
    const a = assign(e.epoch, e.shards);
    this.cur = a;
    if (!this.prev) this.show = 'current';
    const world = e.shards.length;
    this.root.dataset.epoch = String(e.epoch);
    this.root.dataset.ranks = String(world);
    this.head.textContent = headline(a, world);
    const m = this.prev ? moved(this.prev, a) : { changed: 0, compared: 0 };
    this.movedShare = this.prev ? m.changed / Math.max(1, m.compared) : NaN;
    this.movedText.textContent = movedLine(this.prev, a, m.changed, m.compared, world, this.settings);
    this.padText.textContent = paddingLine(a, world, this.settings);
    this.noteText.textContent = note(world, this.settings);
    this.list.replaceChildren(...rankLines(a, this.settings));
    this.legendSlot.replaceChildren(gridLegend(this.settings.dp ? 1 : world));
    this.toggle.hidden = !this.prev;
    this.buttons.moved.hidden = this.settings.dp;
    if (this.settings.dp && this.show === 'moved') this.show = 'current';
    this.canvas.hidden = false;
    this.hover.textContent = t().shards.point;
    this.draw();
    return false;
  }

  private select(s: GridShow): void {
    this.show = s;
    this.draw();
  }

  private availableWidth(): number {
    return Math.min(640, Math.max(160, (this.root.clientWidth || 480) - 4));
  }

  /** The assignment the grid shows now. */
  private shown(): Assignment | null {
    return this.show === 'previous' ? (this.prev ?? this.cur) : this.cur;
  }

  private draw(): void {
    const a = this.shown();
    if (!a || !this.cur) return;
    for (const [s, b] of Object.entries(this.buttons) as [GridShow, HTMLButtonElement][])
      b.setAttribute('aria-pressed', String(s === this.show));
    this.width = this.availableWidth();
    const world = this.cur.shards.length;
    this.grid = layout(Math.max(this.cur.size, this.prev?.size ?? 0), this.width, world, !this.settings.shuffle);
    drawGrid(this.canvas, a, this.grid, this.show, this.show === 'moved' ? this.prev : null);
    const w = t().shards;
    const what = this.show === 'moved' ? w.movedWhat(a.epoch, String(this.prev?.epoch ?? '–')) : w.epochWhat(a.epoch);
    this.canvas.setAttribute('aria-label', w.gridLabel(what, headline(a, world)));
    this.caption.textContent = w.caption(what, this.grid.cols);
  }

  private pointAt(x: number, y: number): void {
    const a = this.shown(),
      g = this.grid;
    if (!a || !g) return;
    const col = Math.floor(x / g.cell),
      row = Math.floor(y / g.cell);
    const i = row * g.cols + col;
    if (col >= g.cols || i >= a.size) {
      this.hover.textContent = '';
      return;
    }
    const o = a.owner[i] ?? -1,
      two = a.second[i] ?? -1;
    const w = t().shards;
    const where =
      o < 0 ? w.notSampled : w.where(o, this.settings.dp, (a.pos[i] ?? 0) + 1, a.shards[o]?.length ?? 0, two);
    const other = this.show === 'previous' ? this.cur : this.prev;
    const was = other?.owner[i] ?? -1;
    const then = other && other !== a ? w.then(other.epoch, was) : '';
    this.hover.textContent = w.hover(i, where, then);
  }
}

function settingsOf(c: TrainConfig): ShardSettings {
  return { shuffle: c.shuffle, dropLast: c.dropLast, seed: c.seed, dp: PARALLEL_MODES[c.mode].topology === 'star' };
}
