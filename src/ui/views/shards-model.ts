// The shard view's model: which rank gets each dataset index in one epoch (from the index lists
// the ranks' DistributedSamplers produced), where padding repeated an index, how many indices
// moved to another rank since the previous epoch, and the pixels of the index grid. No DOM here
// apart from the canvas context the grid is drawn on.
import { rankColor } from '../palette.ts';

export interface Assignment {
  readonly epoch: number;
  readonly shards: readonly Int32Array[];
  /** Index space drawn: 0 .. size-1 (the largest index seen + 1). */
  readonly size: number;
  /** Rank that got each index first, -1 if none did. */
  readonly owner: Int8Array;
  /** Rank that got it a second time (padding), -1 if none. */
  readonly second: Int8Array;
  /** Position of the index in its owner's list. */
  readonly pos: Int32Array;
  readonly total: number;
  readonly distinct: number;
  /** Indices handed out twice or more (padding), at most 64 listed. */
  readonly repeated: readonly number[];
  readonly repeatedCount: number;
  /** Indices below `size` that no rank got (drop_last). */
  readonly missing: number;
}

export function assign(epoch: number, shards: readonly Int32Array[]): Assignment {
  let size = 0,
    total = 0;
  for (const s of shards) {
    total += s.length;
    for (const i of s) if (i + 1 > size) size = i + 1;
  }
  const owner = new Int8Array(size).fill(-1);
  const second = new Int8Array(size).fill(-1);
  const pos = new Int32Array(size);
  const repeated: number[] = [];
  let repeatedCount = 0;
  shards.forEach((s, r) => {
    s.forEach((i, k) => {
      if (i < 0) return;
      if (owner[i] === -1) {
        owner[i] = r;
        pos[i] = k;
        return;
      }
      if (second[i] === -1) {
        second[i] = r;
        repeatedCount++;
        if (repeated.length < 64) repeated.push(i);
      }
    });
  });
  let distinct = 0;
  for (const o of owner) if (o >= 0) distinct++;
  return {
    epoch,
    shards,
    size,
    owner,
    second,
    pos,
    total,
    distinct,
    repeated,
    repeatedCount,
    missing: size - distinct,
  };
}

/** Indices owned by a different rank than in `before` (over the indices both epochs hand out). */
export function moved(before: Assignment, after: Assignment): { changed: number; compared: number } {
  const n = Math.min(before.size, after.size);
  let changed = 0,
    compared = 0;
  for (let i = 0; i < n; i++) {
    const a = before.owner[i] ?? -1,
      b = after.owner[i] ?? -1;
    if (a < 0 || b < 0) continue;
    compared++;
    if (a !== b) changed++;
  }
  return { changed, compared };
}

export type GridShow = 'current' | 'previous' | 'moved';

export interface GridLayout {
  readonly cols: number;
  readonly rows: number;
  readonly cell: number;
}

/**
 * Cells as large as fit `width` css px with the grid about `height` tall (whole pixels from 6 px
 * up, drawn with a gap; smaller ones may be fractional, one canvas pixel each, scaled by CSS);
 * columns a multiple of W when asked.
 */
export function layout(size: number, width: number, world: number, alignToWorld: boolean, height = 230): GridLayout {
  const n = Math.max(1, size);
  const fit = Math.max(1, Math.min(22, Math.sqrt((width * height) / n)));
  const cell = fit >= 6 ? Math.floor(fit) : fit;
  let cols = Math.max(1, Math.min(n, Math.floor(width / cell)));
  if (alignToWorld && world > 1 && cols >= world) cols -= cols % world;
  return { cols, rows: Math.ceil(n / cols), cell };
}

const MISSING = [225, 229, 234];
const REPEAT = [27, 31, 36];

function rgb(hex: string): number[] {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

const fade = (c: number[]): number[] => c.map((v) => Math.round(v + (255 - v) * 0.8));

/**
 * Draws the grid on `canvas`: one cell per index, coloured by owning rank; repeated (padded)
 * indices dark, indices nobody got light grey. 'moved' fades the indices that kept their rank.
 * Small cells are drawn one pixel each and scaled up by CSS; big ones get a gap and show a
 * repeated index as two halves (its two ranks).
 */
export function drawGrid(
  canvas: HTMLCanvasElement,
  a: Assignment,
  g: GridLayout,
  show: GridShow,
  before: Assignment | null,
): void {
  const big = g.cell >= 6;
  const scale = big ? g.cell : 1;
  canvas.width = g.cols * scale;
  canvas.height = g.rows * scale;
  canvas.style.width = `${g.cols * g.cell}px`;
  canvas.style.height = `${g.rows * g.cell}px`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const colors = Array.from({ length: 8 }, (_, r) => rgb(rankColor(r)));
  const colorOf = (i: number): number[] => {
    const o = a.owner[i] ?? -1;
    if (o < 0) return MISSING;
    if ((a.second[i] ?? -1) >= 0 && !big) return REPEAT;
    const c = colors[o % 8] ?? MISSING;
    return show === 'moved' && before && (before.owner[i] ?? -1) === o ? fade(c) : c;
  };
  if (!big) {
    const img = ctx.createImageData(canvas.width, canvas.height);
    for (let i = 0; i < a.size; i++) {
      const c = colorOf(i),
        p = 4 * i;
      img.data[p] = c[0] ?? 0;
      img.data[p + 1] = c[1] ?? 0;
      img.data[p + 2] = c[2] ?? 0;
      img.data[p + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    return;
  }
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const css = (c: number[]) => `rgb(${c[0] ?? 0},${c[1] ?? 0},${c[2] ?? 0})`;
  for (let i = 0; i < a.size; i++) {
    const x = (i % g.cols) * g.cell,
      y = Math.floor(i / g.cols) * g.cell,
      s = g.cell - 1;
    ctx.fillStyle = css(colorOf(i));
    ctx.fillRect(x, y, s, s);
    const two = a.second[i] ?? -1;
    if (two >= 0) {
      ctx.fillStyle = css(colors[two % 8] ?? REPEAT);
      ctx.fillRect(x, y + s / 2, s, s / 2);
      ctx.strokeStyle = css(REPEAT);
      ctx.lineWidth = 2;
      ctx.strokeRect(x + 1, y + 1, s - 2, s - 2);
    }
  }
}
