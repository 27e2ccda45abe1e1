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
import { t } from '../i18n/index.ts';

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
      'aria-label': t().ring.waiting,
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
          h('th', { scope: 'col' }, t().ring.colRank),
          h('th', { scope: 'col' }, t().ring.colSent),
          h('th', { scope: 'col' }, t().ring.colTime),
          h('th', { scope: 'col' }, t().ring.colTransfers),
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
    const words = t().ring;
    const ring = Array.from({ length: this.world }, (_, r) => words.sendsTo(r, (r + 1) % this.world)).join(', ');
    this.fig.setAttribute(
      'aria-label',
      this.world === 0
        ? words.waiting
        : star
          ? words.star(this.world)
          : this.world === 1
            ? words.oneWorker
            : words.ringOf(this.world, ring),
    );
    this.note.textContent =
      this.world === 0 ? words.startNote : this.world === 1 ? words.oneNote : star ? words.starNote : '';
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
    if (!recorded && this.world > 1) this.note.textContent = t().ring.noRecording;
    else if (!star && this.world > 1) this.note.textContent = '';
    this.summaryText =
      t().ring.summary(ev.step, ev.epoch, bytes(sent), duration(comm)) +
      (recorded ? t().ring.summaryTransfers(replay.flights.length, this.reduceMotion ? '' : slowdown(w.factor)) : '.');
    this.clock.textContent = '';
    if (this.reduceMotion || !recorded) this.frame(this.playing, replay.span);
  }

  /** Draws the replay at real time t (ms after the step's first transfer). */
  private frame(p: Playing, time: number): void {
    const { replay, ev } = p;
    const star = isDataParallelMode(this.mode);
    this.dots.draw(this.reduceMotion ? [] : p.flights, time, this.world, star, this.names);
    if (!star) {
      const held = this.reduceMotion ? endStates(replay, this.world) : holdings(replay, this.world, time);
      this.holds.forEach((el, r) => {
        el.textContent = held[r] ?? '';
      });
    }
    const head = t().ring.head(ev.step, ev.epoch);
    this.phase.textContent =
      this.world < 2
        ? t().ring.oneHead(head)
        : replay.flights.length === 0
          ? t().ring.noneHead(head)
          : star
            ? dpPhase(head, p.flights, this.names, time)
            : this.reduceMotion
              ? reducedPhase(head, replay)
              : ringPhase(head, replay, time, p.warp);
    this.setClock(time, replay.span, p.warp);
  }

  private setClock(time: number, span: number, w: Warp | null): void {
    this.timeline.hidden = !(span > 0 && w);
    this.bar.style.transform = `scaleX(${span > 0 ? Math.min(1, time / span) : 0})`;
    const skip = w && w.skipped > 0.5 && !this.reduceMotion ? t().ring.skipped(duration(w.skipped)) : '';
    this.clock.textContent =
      span > 0 && w
        ? t().ring.clock(
            Math.min(time, span).toFixed(1),
            span.toFixed(1),
            replayNote(w.factor, this.reduceMotion),
            skip,
          )
        : '';
  }
}
