// The ten classes of the built-in synthetic dataset, drawn into 32x32 CHW bytes: five shapes
// (circle, square, triangle, ring, cross) at a random position and size, four textures (horizontal,
// vertical, diagonal stripes, checkerboard) with random stripe width and phase, and a smooth linear
// gradient in a random direction. Foreground and background colours are random and independent of
// the class (only shape and texture tell classes apart), then uniform noise is added.
import type { CpuGenerator } from '../random/generator.ts';

export const SYNTHETIC_CLASSES: readonly string[] = [
  'circle',
  'square',
  'triangle',
  'horizontal_stripes',
  'vertical_stripes',
  'diagonal_stripes',
  'checkerboard',
  'ring',
  'cross',
  'gradient',
];

const SIDE = 32;
const PLANE = SIDE * SIDE;

/** A uniform float in [lo, hi) from one 32-bit draw. */
function uniform(g: CpuGenerator, lo: number, hi: number): number {
  return lo + (g.random() / 2 ** 32) * (hi - lo);
}

/** Foreground coverage (0 background, 1 foreground, between = blend) of pixel centre (x, y). */
function coverage(cls: number, x: number, y: number, p: Geometry): number {
  const dx = x - p.cx;
  const dy = y - p.cy;
  const r = p.r;
  switch (cls) {
    case 0:
      return dx * dx + dy * dy <= r * r ? 1 : 0; // circle
    case 1:
      return Math.max(Math.abs(dx), Math.abs(dy)) <= r * 0.8 ? 1 : 0; // square
    case 2: {
      // triangle, apex up, base 2r
      const t = (dy + r) / (2 * r);
      return t >= 0 && t <= 1 && Math.abs(dx) <= t * r ? 1 : 0;
    }
    case 3:
      return Math.floor((y + p.phase) / p.width) & 1; // horizontal stripes
    case 4:
      return Math.floor((x + p.phase) / p.width) & 1; // vertical stripes
    case 5:
      return Math.floor((x + p.sign * y + 64 + p.phase) / p.width) & 1; // diagonal stripes
    case 6:
      return (Math.floor((x + p.phase) / (p.width + 2)) + Math.floor((y + p.phase) / (p.width + 2))) & 1; // checkerboard
    case 7: {
      // ring
      const d2 = dx * dx + dy * dy;
      const inner = r - Math.max(2, r * 0.4);
      return d2 <= r * r && d2 >= inner * inner ? 1 : 0;
    }
    case 8: {
      // cross
      const t = Math.max(1.5, r * 0.28);
      const ax = Math.abs(dx);
      const ay = Math.abs(dy);
      return (ax <= t && ay <= r) || (ay <= t && ax <= r) ? 1 : 0;
    }
    default: // linear gradient across the image
      return Math.min(1, Math.max(0, 0.5 + ((x - 16) * p.cos + (y - 16) * p.sin) / 24));
  }
}

interface Geometry {
  cx: number;
  cy: number;
  r: number;
  width: number;
  phase: number;
  sign: number;
  cos: number;
  sin: number;
}

/**
 * Gradient directions: 16 steps of 22.5 degrees, as literals (Math.cos/sin may differ in the last
 * bit between JavaScript engines; the bytes must not).
 */
const C1 = 0.9238795325112867;
const C2 = 0.7071067811865476;
const C3 = 0.3826834323650898;
const DIRECTIONS: readonly (readonly [number, number])[] = [
  [1, 0],
  [C1, C3],
  [C2, C2],
  [C3, C1],
  [0, 1],
  [-C3, C1],
  [-C2, C2],
  [-C1, C3],
  [-1, 0],
  [-C1, -C3],
  [-C2, -C2],
  [-C3, -C1],
  [0, -1],
  [C3, -C1],
  [C2, -C2],
  [C1, -C3],
];

/** The random geometry of one image (the same draws for every class, so streams stay aligned). */
function geometry(g: CpuGenerator): Geometry {
  const cx = uniform(g, 10, 22);
  const cy = uniform(g, 10, 22);
  const r = uniform(g, 7.5, 12);
  const width = 2 + (g.random() % 3); // stripe / cell width 2..4 px
  const phase = g.random() % 8;
  const sign = g.random() & 1 ? 1 : -1;
  const [cos, sin] = DIRECTIONS[g.random() % DIRECTIONS.length] ?? [1, 0];
  return { cx, cy, r, width, phase, sign, cos, sin };
}

/** Three colour bytes from one draw. */
function colour(g: CpuGenerator): [number, number, number] {
  const v = g.random();
  return [v & 255, (v >>> 8) & 255, (v >>> 16) & 255];
}

const mask = new Float32Array(PLANE);

/**
 * Draws one image of class `cls` into out[at .. at+3072) (CHW). Colours: background random,
 * foreground random at L1 distance >= 240 from it; `noise` is the amplitude of uniform noise.
 */
export function paintImage(cls: number, g: CpuGenerator, noise: number, out: Uint8Array, at = 0): void {
  const bg = colour(g);
  let fg = colour(g);
  for (
    let tries = 0;
    tries < 64 && Math.abs(fg[0] - bg[0]) + Math.abs(fg[1] - bg[1]) + Math.abs(fg[2] - bg[2]) < 240;
    tries++
  )
    fg = colour(g);
  const geo = geometry(g);
  for (let y = 0; y < SIDE; y++)
    for (let x = 0; x < SIDE; x++) mask[y * SIDE + x] = coverage(cls, x + 0.5, y + 0.5, geo);
  const span = 2 * noise + 1;
  for (let c = 0; c < 3; c++) {
    const b = bg[c] ?? 0;
    const delta = (fg[c] ?? 0) - b;
    const base = at + c * PLANE;
    for (let i = 0; i < PLANE; i += 4) {
      let bits = noise > 0 ? g.random() : 0;
      for (let k = i; k < i + 4; k++) {
        const n = noise > 0 ? ((bits & 255) % span) - noise : 0;
        bits >>>= 8;
        const v = b + delta * (mask[k] ?? 0) + n;
        out[base + k] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
      }
    }
  }
}
