// Geometry of the ring view: W worker nodes on a circle, an arc from each rank to the next (ring
// collectives) or a pair of spokes between rank 0 and each replica (DataParallel), and the point
// at a fraction of the way along either, where a moving chunk is drawn.
import { svg } from '../dom.ts';
import { rankColor } from '../palette.ts';
import { t } from '../i18n/index.ts';

export const VIEW = { w: 460, h: 360, cx: 230, cy: 180, r: 118 } as const;

/** Node radius: smaller when many nodes share the circle. */
export const nodeRadius = (world: number): number => (world > 5 ? 19 : 23);

export interface Pt {
  readonly x: number;
  readonly y: number;
}

/** Colour of a moving chunk, by phase (never the only cue: the phase is also written out). */
export const PHASE_COLOR = { 'reduce-scatter': '#6f3f96', 'all-gather': '#0f6e63', broadcast: '#8a4b00' } as const;

const angle = (rank: number, world: number): number => -Math.PI / 2 + (2 * Math.PI * rank) / Math.max(1, world);

const at = (a: number, radius: number): Pt => ({
  x: VIEW.cx + radius * Math.cos(a),
  y: VIEW.cy + radius * Math.sin(a),
});

export function nodePos(rank: number, world: number): Pt {
  return world === 1 ? { x: VIEW.cx, y: VIEW.cy } : at(angle(rank, world), VIEW.r);
}

/** Start and end angle of the arc from `from` to `from + 1`, clear of the node circles. */
function arcAngles(from: number, world: number): [number, number] {
  const gap = (nodeRadius(world) + 7) / VIEW.r;
  return [angle(from, world) + gap, angle(from, world) + (2 * Math.PI) / world - gap];
}

/** Length of the link a chunk travels, px: the arc to the next rank, or a spoke. */
export function linkLength(from: number, to: number, world: number, star: boolean): number {
  if (star || to !== (from + 1) % world) {
    const [a, b] = spoke(from, to, world);
    return Math.hypot(b.x - a.x, b.y - a.y);
  }
  const [a0, a1] = arcAngles(from, world);
  return (a1 - a0) * VIEW.r;
}

export function pointOnArc(from: number, world: number, f: number): Pt {
  const [a0, a1] = arcAngles(from, world);
  return at(a0 + (a1 - a0) * f, VIEW.r);
}

/**
 * The spoke between rank 0 and replica r, offset sideways by direction (outbound on one side,
 * inbound on the other) so both directions stay visible.
 */
function spoke(from: number, to: number, world: number): [Pt, Pt] {
  const a = nodePos(from, world),
    b = nodePos(to, world);
  const dx = b.x - a.x,
    dy = b.y - a.y,
    len = Math.hypot(dx, dy) || 1;
  const ux = dx / len,
    uy = dy / len,
    side = 7;
  const pad = nodeRadius(world) + 6;
  return [
    { x: a.x + ux * pad - uy * side, y: a.y + uy * pad + ux * side },
    { x: b.x - ux * pad - uy * side, y: b.y - uy * pad + ux * side },
  ];
}

export function pointOnSpoke(from: number, to: number, world: number, f: number): Pt {
  const [a, b] = spoke(from, to, world);
  return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
}

/** Where rank r's label and holdings text go: outside the circle, beside its node. */
export function labelPos(rank: number, world: number): { p: Pt; anchor: 'start' | 'middle' | 'end' } {
  if (world === 1) return { p: { x: VIEW.cx, y: VIEW.cy + nodeRadius(world) + 18 }, anchor: 'middle' };
  const a = angle(rank, world);
  const c = Math.cos(a);
  const p = at(a, VIEW.r + nodeRadius(world) + 10);
  const anchor = Math.abs(c) < 0.3 ? 'middle' : c > 0 ? 'start' : 'end';
  const dy = Math.sin(a) < -0.7 ? -16 : Math.sin(a) > 0.7 ? 12 : -4;
  return { p: { x: p.x, y: p.y + dy }, anchor };
}

/** White or dark text, whichever contrasts more with the #rrggbb background. */
export function inkOn(hex: string): string {
  const lin = (i: number): number => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(1) + 0.7152 * lin(3) + 0.0722 * lin(5);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#1b1f24';
}

/** The arrowhead marker, once per SVG. */
export function arrowDefs(): SVGDefsElement {
  return svg(
    'defs',
    {},
    svg(
      'marker',
      {
        id: 'ring-arrow',
        viewBox: '0 0 10 10',
        refX: 8,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto-start-reverse',
      },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#8c959f' }),
    ),
  );
}

/** The links: arcs r -> r+1 (ring), or spokes both ways between rank 0 and every replica (star). */
export function links(world: number, star: boolean): SVGGElement {
  const g = svg('g', { class: 'ring-links' });
  if (world < 2) return g;
  if (star) {
    for (let r = 1; r < world; r++) {
      for (const [a, b] of [
        [0, r],
        [r, 0],
      ] as const) {
        const [p, q] = spoke(a, b, world);
        g.append(svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, 'marker-end': 'url(#ring-arrow)' }));
      }
    }
    return g;
  }
  for (let r = 0; r < world; r++) {
    const [a0, a1] = arcAngles(r, world);
    const p = at(a0, VIEW.r),
      q = at(a1, VIEW.r);
    const large = a1 - a0 > Math.PI ? 1 : 0;
    g.append(
      svg('path', {
        d: `M${p.x.toFixed(1)},${p.y.toFixed(1)} A${VIEW.r},${VIEW.r} 0 ${large} 1 ${q.x.toFixed(1)},${q.y.toFixed(1)}`,
        'marker-end': 'url(#ring-arrow)',
      }),
    );
  }
  return g;
}

/** The worker nodes; returns the group and each rank's second label line (what it holds while replaying; its role in a star). */
export function nodes(world: number, star: boolean): { g: SVGGElement; holds: SVGTextElement[] } {
  const g = svg('g', { class: 'ring-nodes' });
  const holds: SVGTextElement[] = [];
  for (let r = 0; r < world; r++) {
    const c = nodePos(r, world);
    const { p, anchor } = labelPos(r, world);
    const role = star ? (r === 0 ? t().ring.deviceZero : t().ring.replica) : '';
    const hold = svg('text', { x: p.x, y: p.y + 14, 'text-anchor': anchor, class: 'ring-hold' }, role);
    holds.push(hold);
    g.append(
      svg('circle', { cx: c.x, cy: c.y, r: nodeRadius(world), fill: rankColor(r), class: 'ring-node' }),
      svg(
        'text',
        { x: c.x, y: c.y + 6, 'text-anchor': 'middle', class: 'ring-num', fill: inkOn(rankColor(r)) },
        String(r),
      ),
      svg('text', { x: p.x, y: p.y, 'text-anchor': anchor, class: 'ring-label' }, t().ring.rankN(r)),
      hold,
    );
  }
  return { g, holds };
}
