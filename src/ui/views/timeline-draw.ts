// Draws the timeline's lanes on a canvas: one group of rows per rank (GPU work, communication,
// data), the step as a pale band behind them, ring chunks as ticks. Pure drawing from spans: the
// view decides which window of time to show.
import type { Lane, Span } from '../../trace/tracer.ts';
import { t } from '../i18n/index.ts';

export const ROWS: readonly { readonly lane: 'compute' | 'comm' | 'data' }[] = [
  { lane: 'compute' },
  { lane: 'comm' },
  { lane: 'data' },
];
const ROW_H = 16;
const RANK_GAP = 10;
const LABEL_W = 86;

/**
 * Colour of a span: GPU work blue, collectives orange, writes of reduced buckets gold, data green;
 * a collective a rank was still in when the run failed (its flight recorder's), red.
 */
export function colourOf(s: Span): string {
  if (s.args?.['recorder'] === 'flight' && s.name.includes('in flight')) return '#c0392b';
  if (s.lane === 'compute') return s.name === 'optimizer' ? '#7a4fd0' : '#3b6fd8';
  if (s.lane === 'data') return '#3aa35b';
  if (s.lane === 'comm') return s.name.startsWith('write') ? '#c9a227' : '#e8833a';
  return '#d9dde3';
}

export const rankHeight = (): number => ROWS.length * ROW_H + RANK_GAP;

export interface Window {
  readonly t0: number;
  readonly t1: number;
}

/** Draws every rank's spans inside `win`; returns how many spans it drew per lane. */
export function drawTimeline(
  canvas: HTMLCanvasElement,
  ranks: readonly (readonly Span[])[],
  win: Window,
): Record<Lane, number> {
  const drawn: Record<Lane, number> = { step: 0, data: 0, compute: 0, comm: 0 };
  const cssW = Math.max(320, canvas.clientWidth || canvas.parentElement?.clientWidth || 800);
  const cssH = ranks.length * rankHeight() + 18;
  const dpr = globalThis.devicePixelRatio || 1;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  canvas.style.height = `${cssH}px`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return drawn;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const span = Math.max(1e-6, win.t1 - win.t0);
  const x = (t: number) => LABEL_W + ((t - win.t0) / span) * (cssW - LABEL_W - 4);
  ranks.forEach((spans, r) => {
    const top = r * rankHeight();
    ctx.fillStyle = '#222';
    ctx.fillText(t().timeline.rank(r), 2, top + ROW_H / 2);
    ROWS.forEach((row, i) => {
      ctx.fillStyle = '#666';
      ctx.fillText(t().timeline.rows[row.lane], 44, top + i * ROW_H + ROW_H / 2);
    });
    for (const s of spans) {
      const end = s.t + (s.dur ?? 0);
      if (end < win.t0 || s.t > win.t1) continue;
      if (s.lane === 'step') {
        if (s.dur === undefined || !s.name.startsWith('step')) continue;
        ctx.fillStyle = 'rgba(120, 130, 150, 0.12)';
        ctx.fillRect(x(s.t), top, Math.max(1, x(end) - x(s.t)), ROWS.length * ROW_H);
        drawn.step++;
        continue;
      }
      const row = ROWS.findIndex((w) => w.lane === s.lane);
      const y = top + row * ROW_H;
      ctx.fillStyle = colourOf(s);
      if (s.dur === undefined) ctx.fillRect(x(s.t) - 0.5, y + ROW_H - 5, 1, 4);
      else ctx.fillRect(x(s.t), y + 2, Math.max(1, x(end) - x(s.t)), ROW_H - 5);
      drawn[s.lane]++;
    }
  });
  const axisY = ranks.length * rankHeight() + 8;
  ctx.fillStyle = '#444';
  ctx.fillText('0 ms', LABEL_W, axisY);
  const label = `${span.toFixed(1)} ms`;
  ctx.fillText(label, cssW - 4 - ctx.measureText(label).width, axisY);
  return drawn;
}
