// The moving chunks of the ring view: one labelled pill per transfer in flight at the replayed
// time, on its arc (ring) or spoke (DataParallel star). Pills are pooled SVG groups, so a frame
// only moves and relabels them. Chunks queued on one link (posted before the neighbour took the
// previous one) line up behind each other; when no room is left, the rearmost says how many more wait.
import { svg } from '../dom.ts';
import { bytes } from '../format.ts';
import { linkLength, PHASE_COLOR, pointOnArc, pointOnSpoke } from './ring-layout.ts';
import type { Flight } from './ring-replay.ts';

/** Spacing between chunks queued on the same link, px. */
const QUEUE_GAP_PX = 30;

export class DotLayer {
  private readonly pool: SVGGElement[] = [];

  constructor(private readonly layer: SVGGElement) {}

  /** Forgets every pill (after the nodes were redrawn). */
  clear(): void {
    this.pool.length = 0;
    this.layer.replaceChildren();
  }

  /** Draws the flights in the air at real time t; `names` labels DataParallel messages. */
  draw(flights: readonly Flight[], t: number, world: number, star: boolean, names: ReadonlyMap<Flight, string>): void {
    let used = 0;
    const queues = new Map<string, { pos: number; rear: SVGGElement; label: string; more: number }>();
    for (const f of flights) {
      if (f.t0 > t) break;
      if (t >= f.t1) continue;
      const link = `${f.from}>${f.to}`;
      const own = f.t1 > f.t0 ? (t - f.t0) / (f.t1 - f.t0) : 0.5;
      const queue = queues.get(link);
      const q = Math.min(
        own,
        (queue?.pos ?? Infinity) - Math.min(0.6, QUEUE_GAP_PX / Math.max(1, linkLength(f.from, f.to, world, star))),
      );
      if (queue && q < 0) {
        queue.more++;
        continue;
      }
      const g = this.pill(used++);
      const pos = Math.min(1, Math.max(0, q));
      const pt =
        star || f.to !== (f.from + 1) % world ? pointOnSpoke(f.from, f.to, world, pos) : pointOnArc(f.from, world, pos);
      g.setAttribute('visibility', 'visible');
      g.setAttribute('transform', `translate(${pt.x.toFixed(1)},${pt.y.toFixed(1)})`);
      g.firstElementChild?.setAttribute('fill', PHASE_COLOR[f.phase]);
      const label = f.phase === 'broadcast' ? (names.get(f) ?? bytes(f.bytes)) : `c${f.chunk}`;
      relabel(g, label);
      queues.set(link, { pos, rear: g, label, more: 0 });
    }
    for (const q of queues.values()) if (q.more > 0) relabel(q.rear, `${q.label} +${q.more}`);
    for (let i = used; i < this.pool.length; i++) this.pool[i]?.setAttribute('visibility', 'hidden');
  }

  private pill(i: number): SVGGElement {
    let g = this.pool[i];
    if (!g) {
      g = svg(
        'g',
        { class: 'ring-dot' },
        svg('rect', { x: -16, y: -10, width: 32, height: 20, rx: 10 }),
        svg('text', { y: 4.5, 'text-anchor': 'middle' }),
      );
      this.pool.push(g);
      this.layer.append(g);
    }
    return g;
  }
}

function relabel(g: SVGGElement, label: string): void {
  const rect = g.firstElementChild,
    text = g.lastElementChild;
  if (!text || text.textContent === label) return;
  const width = 12 + 7.4 * label.length;
  rect?.setAttribute('width', String(width));
  rect?.setAttribute('x', String(-width / 2));
  text.textContent = label;
}
