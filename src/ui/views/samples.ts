// The images of rank 0's current batch, as the dataset stores them (before normalisation), each
// captioned with what the model predicts for it now and its true class: a tick or a cross plus the
// words "right"/"wrong", so the result never rests on colour alone.
import type { BatchSample } from '../../runtime/protocol.ts';
import { h } from '../dom.ts';
import { rich, t } from '../i18n/index.ts';
import './samples.css';

const SIDE = 32;
const PLANE = SIDE * SIDE;

interface Tile {
  readonly figure: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  readonly ctx: CanvasRenderingContext2D | null;
  readonly image: ImageData | null;
  readonly mark: HTMLElement;
  /** "predicted " (shown only when the prediction is wrong; when right, one name says both). */
  readonly predKey: HTMLElement;
  readonly predicted: HTMLElement;
  readonly truthLine: HTMLElement;
  readonly truth: HTMLElement;
}

/** A class index as a readable name ("horizontal_stripes" -> "horizontal stripes"). */
function className(classes: readonly string[], i: number): string {
  const name = classes[i];
  return name === undefined ? t().samples.className(i) : (t().samples.classNames[name] ?? name.replace(/_/g, ' '));
}

export class SamplesView {
  private readonly title: HTMLParagraphElement;
  private readonly grid: HTMLDivElement;
  private tiles: Tile[] = [];

  constructor(
    body: HTMLElement,
    private readonly classes: () => readonly string[],
  ) {
    this.title = h('p', { class: 'samples-title', 'aria-live': 'off' });
    this.grid = h('div', { class: 'samples-grid', role: 'list', 'aria-label': t().samples.listLabel });
    body.append(h('div', { class: 'samples' }, this.title, this.grid));
    this.reset();
  }

  /** Draws `sample` (rank 0's batch) at the given epoch and step. */
  show(sample: BatchSample, step: { epoch: number; step: number }): void {
    const n = Math.min(sample.labels.length, sample.predicted.length, Math.floor(sample.images.length / (3 * PLANE)));
    if (n !== this.tiles.length) this.build(n);
    const names = this.classes();
    let right = 0;
    for (let i = 0; i < n; i++) {
      const tile = this.tiles[i];
      if (!tile) continue;
      const truth = sample.labels[i] ?? -1;
      const pred = sample.predicted[i] ?? -1;
      const ok = truth === pred;
      if (ok) right++;
      draw(tile, sample.images, i);
      tile.figure.classList.toggle('right', ok);
      tile.figure.classList.toggle('wrong', !ok);
      tile.mark.textContent = ok ? t().samples.right : t().samples.wrong;
      tile.predKey.hidden = ok;
      tile.predicted.textContent = className(names, pred);
      tile.truthLine.hidden = ok;
      tile.truth.textContent = className(names, truth);
      tile.canvas.setAttribute(
        'aria-label',
        t().samples.imageLabel(i + 1, className(names, truth), className(names, pred)),
      );
    }
    this.title.replaceChildren(
      h('span', {}, ...rich(t().samples.title(step.epoch, step.step))),
      h('span', { class: 'samples-score' }, t().samples.score(right, n)),
    );
  }

  /** Forgets the previous run. */
  reset(): void {
    this.build(0);
    this.title.replaceChildren(h('span', { class: 'samples-empty' }, t().samples.empty));
  }

  private build(n: number): void {
    this.tiles = Array.from({ length: n }, () => tile());
    this.grid.replaceChildren(...this.tiles.map((t) => t.figure));
  }
}

function tile(): Tile {
  const canvas = h('canvas', { width: SIDE, height: SIDE, role: 'img' });
  const ctx = canvas.getContext('2d');
  const mark = h('span', { class: 'samples-mark' });
  const predKey = h('span', { class: 'samples-k' }, t().samples.predicted);
  const predicted = h('span', { class: 'samples-pred' });
  const truth = h('span', { class: 'samples-true' });
  const truthLine = h('span', { class: 'samples-line' }, h('span', { class: 'samples-k' }, t().samples.truth), truth);
  const figure = h(
    'figure',
    { class: 'samples-tile', role: 'listitem' },
    canvas,
    h('figcaption', {}, mark, h('span', { class: 'samples-line' }, predKey, predicted), truthLine),
  );
  return {
    figure,
    canvas,
    ctx,
    image: ctx ? ctx.createImageData(SIDE, SIDE) : null,
    mark,
    predKey,
    predicted,
    truthLine,
    truth,
  };
}

/** Image i of [n, 3, 32, 32] CHW bytes (planes R, G, B) onto the tile's 32x32 canvas. */
function draw(t: Tile, images: Uint8Array, i: number): void {
  if (!t.ctx || !t.image) return;
  const px = t.image.data;
  const base = i * 3 * PLANE;
  for (let k = 0; k < PLANE; k++) {
    px[4 * k] = images[base + k] ?? 0;
    px[4 * k + 1] = images[base + PLANE + k] ?? 0;
    px[4 * k + 2] = images[base + 2 * PLANE + k] ?? 0;
    px[4 * k + 3] = 255;
  }
  t.ctx.putImageData(t.image, 0, 0);
}
