// The ring view: the workers on a circle, and the chunks of each step's collectives moving from
// rank to rank, replayed in slow motion from the transfer events the workers really recorded
// (send and receive times on one clock). DataParallel has no ring: its pair links to device 0
// are drawn as a star. Counters come from every worker's step log.
import type { Mode } from '../../config.ts';
import type { TrainEvent } from '../../runtime/events.ts';
import { h, svg } from '../dom.ts';
import { bytes, duration } from '../format.ts';
import { DotLayer } from './ring-dots.ts';
import { arrowDefs, links, nodes, VIEW } from './ring-layout.ts';
import { buildReplay, dpMessageNames, endStates, holdings, outcome, type Flight, type Replay } from './ring-replay.ts';
import {
  dpOutcome,
  dpPhase,
  isDataParallelMode,
  legend,
  reducedPhase,
  replayNote,
  ringPhase,
  slowdown,
  statsRows,
} from './ring-text.ts';
import { warp, type Warp } from './ring-warp.ts';
import type { View } from './view.ts';
import './ring.css';

export { ringExplanation } from './ring-text.ts';

type StepEvent = Extract<TrainEvent, { type: 'step' }>;

/** How long a step's end state stays on screen before the next step's replay. */
const HOLD_MS = 600;
/** Shortest time a chunk stays visible in the replay, ms (a fast transfer would flash by unseen). */
const MIN_VISIBLE_MS = 280;

interface Playing {
  readonly ev: StepEvent;
  readonly replay: Replay;
  readonly flights: readonly Flight[];
  readonly start: number;
  readonly warp: Warp;
}

export class RingView implements View {
  private readonly root: HTMLDivElement;
  private readonly fig: SVGSVGElement;
  private readonly dotLayer: SVGGElement;
  private readonly dots: DotLayer;
  private readonly phase = h('p', { class: 'ring-phase' });
  private readonly bar = h('div', { class: 'ring-bar-fill' });
  private readonly clock = h('span', { class: 'ring-clock' });
  private readonly timeline = h(
    'div',
    { class: 'ring-timeline' },
    h('div', { class: 'ring-bar', 'aria-hidden': 'true' }, this.bar),
    this.clock,
  );
  private readonly outcomeText = h('p', { class: 'ring-outcome' });
  private readonly note = h('p', { class: 'ring-note' });
  private readonly tbody = h('tbody');
  private readonly summary = h('p', { class: 'ring-summary', 'aria-live': 'polite' });
  private readonly reduceMotion: boolean;
  private holds: SVGTextElement[] = [];
  private world = 0;
  private mode: Mode = 'ddp';
  private structure = true;
  private pending: StepEvent | null = null;
  private playing: Playing | null = null;
  private names = new Map<Flight, string>();
  private summaryText = '';
  private summaryAt = -Infinity;

  constructor(body: HTMLElement) {
    this.reduceMotion = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.dotLayer = svg('g', { class: 'ring-dots' });
    this.dots = new DotLayer(this.dotLayer);
    this.fig = svg('svg', {
      viewBox: `0 0 ${VIEW.w} ${VIEW.h}`,
      role: 'img',
      class: 'ring-svg',
      'aria-label': 'Ring of workers: waiting for a run',
    });
    const table = h(
      'table',
      { class: 'ring-stats' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'rank'),
          h('th', { scope: 'col' }, 'sent this step'),
          h('th', { scope: 'col' }, 'time in collectives'),
          h('th', { scope: 'col' }, 'transfers sent'),
        ),
      ),
      this.tbody,
    );
    this.root = h(
      'div',
      { class: 'ring-view', 'data-step': '', 'data-transfers': '0' },
      this.phase,
      h('div', { class: 'ring-figure' }, this.fig, h('div', { class: 'ring-side' }, table, legend())),
      this.timeline,
      this.outcomeText,
      this.note,
      this.summary,
    );
    body.append(this.root);
    this.reset();
    this.build();
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') {
      this.reset();
      this.world = e.config.workers;
      this.mode = e.config.mode;
    } else if (e.type === 'step') {
      this.pending = e;
    }
  }

  reset(): void {
    this.world = 0;
    this.mode = 'ddp';
    this.pending = null;
    this.playing = null;
    this.structure = true;
    this.summaryText = '';
    this.summaryAt = -Infinity;
    this.root.dataset.step = '';
    this.root.dataset.transfers = '0';
    this.summary.textContent = '';
    this.outcomeText.textContent = '';
    this.tbody.replaceChildren();
    this.setClock(0, 0, null);
  }

  render(now: number): boolean {
    if (this.structure) this.build();
    const p = this.playing;
    const busy = p !== null && !this.reduceMotion && now < p.start + p.warp.total + HOLD_MS;
    if (this.pending && !busy) this.begin(this.pending, now);
    const cur = this.playing;
    let animating = false;
    if (cur && !this.reduceMotion) {
      this.frame(cur, cur.warp.toReal(now - cur.start));
      animating = now < cur.start + cur.warp.total + HOLD_MS;
    }
    const summaryDue = this.summary.textContent !== this.summaryText;
    if (summaryDue && now - this.summaryAt >= 1000) {
      this.summary.textContent = this.summaryText;
      this.summaryAt = now;
    }
    return animating || this.pending !== null || this.summary.textContent !== this.summaryText;
  }

  /** Redraws the nodes and links after a new run started. */
  private build(): void {
    this.structure = false;
    const star = isDataParallelMode(this.mode);
    const n = nodes(this.world, star);
    this.holds = n.holds;
    this.dots.clear();
    this.fig.replaceChildren(arrowDefs(), links(this.world, star), n.g, this.dotLayer);
    const ring = Array.from({ length: this.world }, (_, r) => `rank ${r} sends to rank ${(r + 1) % this.world}`).join(
      ', ',
    );
    this.fig.setAttribute(
      'aria-label',
      this.world === 0
        ? 'Ring of workers: waiting for a run'
        : star
          ? `DataParallel star of ${this.world} workers: rank 0 (device 0) linked to every replica`
          : this.world === 1
            ? 'One worker: no ring'
            : `Ring of ${this.world} workers: ${ring}`,
    );
    this.note.textContent =
      this.world === 0
        ? 'Start a run to see the workers exchange gradients.'
        : this.world === 1
          ? 'One worker: there is nothing to reduce, so no chunk moves. Use 2 or more workers to see the ring.'
          : star
            ? 'DataParallel: no ring; device 0 scatters inputs, broadcasts parameters and gathers outputs (and gradients) over a link to each replica.'
            : '';
  }

  /** Starts replaying a step (or, with reduced motion, shows where everything ended up). */
  private begin(ev: StepEvent, now: number): void {
    this.pending = null;
    const replay = buildReplay(ev.transfers);
    const first = warp(replay.flights, replay.span);
    const minReal = MIN_VISIBLE_MS / Math.max(first.factor, 1e-9);
    const flights = replay.flights.map((f) => (f.t1 - f.t0 >= minReal ? f : { ...f, t1: f.t0 + minReal }));
    const w = warp(
      flights,
      flights.reduce((m, f) => Math.max(m, f.t1), replay.span),
    );
    this.names = isDataParallelMode(this.mode) ? dpMessageNames(flights) : new Map<Flight, string>();
    this.playing = { ev, replay, flights, start: now, warp: w };
    this.root.dataset.step = String(ev.step);
    this.root.dataset.transfers = String(replay.events);
    this.tbody.replaceChildren(...statsRows(ev, replay));
    const star = isDataParallelMode(this.mode);
    const sent = ev.workers.reduce((a, w) => a + w.commBytes, 0);
    const comm = Math.max(0, ...ev.workers.map((w) => w.commMs));
    this.outcomeText.textContent = star ? dpOutcome(replay, this.world) : outcome(replay, this.world);
    const recorded = ev.transfers.length > 0;
    if (!recorded && this.world > 1)
      this.note.textContent =
        'Transfer recording is off for this run: there are no chunk movements to replay. The counters still come from every worker.';
    else if (!star && this.world > 1) this.note.textContent = '';
    this.summaryText =
      `Step ${ev.step} of epoch ${ev.epoch}: ${bytes(sent)} sent over all ranks, up to ${duration(comm)} in collectives` +
      (recorded ? `, ${replay.flights.length} transfers${this.reduceMotion ? '' : `, ${slowdown(w.factor)}`}.` : '.');
    this.clock.textContent = '';
    if (this.reduceMotion || !recorded) this.frame(this.playing, replay.span);
  }

  /** Draws the replay at real time t (ms after the step's first transfer). */
  private frame(p: Playing, t: number): void {
    const { replay, ev } = p;
    const star = isDataParallelMode(this.mode);
    this.dots.draw(this.reduceMotion ? [] : p.flights, t, this.world, star, this.names);
    if (!star) {
      const held = this.reduceMotion ? endStates(replay, this.world) : holdings(replay, this.world, t);
      this.holds.forEach((el, r) => {
        el.textContent = held[r] ?? '';
      });
    }
    const head = `Step ${ev.step} (epoch ${ev.epoch})`;
    this.phase.textContent =
      this.world < 2
        ? `${head}: one worker, nothing to reduce.`
        : replay.flights.length === 0
          ? `${head}: no transfers recorded.`
          : star
            ? dpPhase(head, p.flights, this.names, t)
            : this.reduceMotion
              ? reducedPhase(head, replay)
              : ringPhase(head, replay, t, p.warp);
    this.setClock(t, replay.span, p.warp);
  }

  private setClock(t: number, span: number, w: Warp | null): void {
    this.timeline.hidden = !(span > 0 && w);
    this.bar.style.transform = `scaleX(${span > 0 ? Math.min(1, t / span) : 0})`;
    const skip =
      w && w.skipped > 0.5 && !this.reduceMotion ? ` · ${duration(w.skipped)} with nothing in flight skipped` : '';
    this.clock.textContent =
      span > 0 && w
        ? `real time ${Math.min(t, span).toFixed(1)} of ${span.toFixed(1)} ms · ${replayNote(w.factor, this.reduceMotion)}${skip}`
        : '';
  }
}
