// The timeline view: what every rank did in the last steps, measured (src/trace: GPU work timed from
// submit to fence, collectives, ring chunks, data), one group of lanes per rank. DDP's buckets
// are all-reduced while backward still runs; DataParallel's replicas wait on device 0; ZeRO
// reduce-scatters then all-gathers. Under the lanes: the communication no GPU work hid, as a share
// of the step. When a rank fails, every rank's collective flight recorder is added (the collectives
// of the failed step, the one each rank was in drawn red) with the recorder's report and every
// rank's recorded collectives beneath: which collective each rank was in, its last completed one,
// who is behind. The whole run's trace downloads as a Chrome trace (Perfetto, chrome://tracing).
import type { RecorderState } from '../../comm/flight-recorder.ts';
import type { RankFailedError, TrainEvent } from '../../runtime/events.ts';
import { recorderSpans } from '../../runtime/recorder-spans.ts';
import { TraceCollector } from '../../trace/collect.ts';
import { stepShares, type StepShare } from '../../trace/overlap.ts';
import type { Span } from '../../trace/tracer.ts';
import { h } from '../dom.ts';
import { t } from '../i18n/index.ts';
import { drawTimeline } from './timeline-draw.ts';
import type { View } from './view.ts';
import './timeline.css';

/** Steps shown at once. */
const STEPS_SHOWN = 2;

export class TimelineView implements View {
  private readonly collector = new TraceCollector();
  private readonly canvas = h('canvas', { class: 'timeline-canvas', role: 'img', 'aria-label': t().timeline.empty });
  private readonly summary = h('p', { class: 'timeline-summary' }, t().timeline.empty);
  private readonly download = h(
    'button',
    { type: 'button', class: 'timeline-download', disabled: true },
    t().timeline.download,
  );
  private readonly report = h('pre', { class: 'timeline-report' });
  /** Every rank's recorded collectives, newest last. */
  private readonly records = h('ul', { class: 'timeline-records' });
  private readonly failure = h(
    'div',
    { class: 'timeline-failure', hidden: true },
    h('h4', {}, t().timeline.recorder),
    this.report,
    this.records,
  );
  private readonly root: HTMLElement;
  /** Optimizer steps done since the run's start, by the last step event (later collectives were not traced). */
  private steps = 0;
  /** Every rank's recorder spans at a failure (index = rank), drawn past the last steps. */
  private recorded: Span[][] = [];
  private about: Record<string, string | number> = {};
  private dirty = false;

  constructor(body: HTMLElement) {
    this.root = h(
      'div',
      { class: 'timeline', 'data-spans': '0', 'data-ranks': '0' },
      legend(),
      this.canvas,
      this.summary,
      this.failure,
      this.download,
    );
    body.append(this.root);
    this.download.addEventListener('click', () => this.save());
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') this.about = { mode: e.config.mode, workers: e.config.workers };
    if (e.type === 'step') this.steps = e.epoch * e.steps + e.step + 1;
    // a step's spans, and at the end the spans of the last steps that landed after them
    if ((e.type !== 'step' && e.type !== 'done') || !e.spans) return;
    this.collector.add(e.spans);
    this.dirty = true;
  }

  /** A rank failed and ended the run: shows every rank's flight recorder (when the coordinator gathered them). */
  failed(e: RankFailedError): void {
    if (!e.collectives) return;
    this.recorded = recorderSpans(e.collectives.states, this.steps);
    this.collector.add(this.recorded);
    this.report.textContent = e.collectives.report;
    const lines = e.collectives.states.map((groups, r) => recorderLine(r, groups));
    this.records.replaceChildren(...lines.map((l) => h('li', {}, l)));
    this.failure.hidden = false;
    this.root.dataset.recorded = String(e.collectives.states.reduce((n, g) => n + (g?.[0]?.records.length ?? 0), 0));
    this.dirty = true;
  }

  render(): boolean {
    if (!this.dirty) return false;
    this.dirty = false;
    const ranks = Array.from({ length: this.collector.world }, (_, r) => this.collector.spans(r));
    const win = withRecorded(windowOf(ranks), this.recorded);
    if (!win) return false;
    const drawn = drawTimeline(this.canvas, ranks, win);
    const shares = ranks.map((s) => stepShares(s).filter((x) => x.step === win.step)[0]);
    this.summary.textContent = summarise(win.step, shares);
    this.canvas.setAttribute('aria-label', t().timeline.canvasLabel(ranks.length, this.summary.textContent));
    Object.assign(this.root.dataset, {
      spans: String(drawn.compute + drawn.comm + drawn.data),
      comm: String(drawn.comm),
      compute: String(drawn.compute),
      ranks: String(ranks.length),
      exposed: String(shares[0] ? shares[0].exposedMs / Math.max(1e-9, shares[0].stepMs) : 0),
    });
    this.download.disabled = this.collector.empty;
    return false;
  }

  /** Communication spans drawn in the last render (the guided path checks DDP's overlap with it). */
  get commSpans(): number {
    return Number(this.root.dataset.comm ?? 0);
  }

  reset(): void {
    this.collector.clear();
    this.steps = 0;
    this.recorded = [];
    this.report.textContent = '';
    this.records.replaceChildren();
    this.failure.hidden = true;
    this.root.dataset.recorded = '0';
    this.download.disabled = true;
    this.dirty = true;
  }

  private save(): void {
    const blob = new Blob([JSON.stringify(this.collector.trace(this.about))], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: 'webddp-trace.json' });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }
}

function legend(): HTMLElement {
  const item = (cls: string, text: string) => h('span', { class: `timeline-key ${cls}` }, text);
  return h(
    'div',
    { class: 'timeline-legend' },
    item('k-gpu', t().timeline.legend.gpu),
    item('k-opt', t().timeline.legend.opt),
    item('k-comm', t().timeline.legend.comm),
    item('k-io', t().timeline.legend.io),
    item('k-data', t().timeline.legend.data),
  );
}

/** The time window of the last STEPS_SHOWN steps (over all ranks), and the last step's number. */
function windowOf(ranks: readonly (readonly Span[])[]): { t0: number; t1: number; step: number } | null {
  const steps = ranks.flatMap((s) => s.filter((x) => x.lane === 'step' && x.name.startsWith('step')));
  if (steps.length === 0) return null;
  const last = Math.max(...steps.map((s) => Number(s.args?.['step'] ?? 0)));
  const shown = steps.filter((s) => Number(s.args?.['step'] ?? 0) > last - STEPS_SHOWN);
  const t0 = Math.min(...shown.map((s) => s.t));
  const t1 = Math.max(...shown.map((s) => s.t + (s.dur ?? 0)));
  return { t0, t1, step: last };
}

/** Records listed per rank (the newest). */
const RECORDS_LISTED = 8;

/** One rank's line: the newest collectives of its ring recorder, each with its bucket, step and duration. */
function recorderLine(rank: number, groups: readonly RecorderState[] | null): string {
  const w = t().timeline;
  const ring = groups?.[0];
  if (!ring) return w.recorderSilent(rank);
  const items = ring.records
    .slice(-RECORDS_LISTED)
    .map((c) => w.recorderItem(c.op, c.seq, c.bucket, c.step, c.end === null ? null : (c.end - c.start).toFixed(1)));
  return w.recorderRank(rank, ring.entered, items.join(' · '));
}

/** The window stretched to the recorder's collectives at a failure (they come after the last step). */
function withRecorded(
  win: { t0: number; t1: number; step: number } | null,
  recorded: readonly (readonly Span[])[],
): { t0: number; t1: number; step: number } | null {
  const spans = recorded.flat();
  if (spans.length === 0) return win;
  const t1 = Math.max(...spans.map((s) => s.t + (s.dur ?? 0)));
  if (win) return { ...win, t1: Math.max(win.t1, t1) };
  return {
    t0: Math.min(...spans.map((s) => s.t)),
    t1,
    step: Math.max(0, ...spans.map((s) => Number(s.args?.['step'] ?? 0))),
  };
}

function summarise(step: number, shares: readonly (StepShare | undefined)[]): string {
  const w = t().timeline;
  const parts = shares.map((s, r) =>
    s
      ? w.share(
          r,
          s.commMs.toFixed(1),
          s.exposedMs.toFixed(1),
          ((100 * s.exposedMs) / Math.max(1e-9, s.stepMs)).toFixed(0),
          s.stepMs.toFixed(1),
        )
      : w.noData(r),
  );
  return w.summary(step, parts.join('; '));
}
