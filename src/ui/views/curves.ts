// Loss, accuracy and throughput as they happen (uPlot): rank 0's loss at every step with its
// moving average, test loss and accuracy at every epoch's end, images/s per step; above them the
// current numbers. Events are only stored; the charts redraw at most once per animation frame.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { TrainEvent } from '../../runtime/events.ts';
import { h } from '../dom.ts';
import { duration, num, pct, rate } from '../format.ts';
import { History } from './history.ts';
import type { View } from './view.ts';
import { t } from '../i18n/index.ts';

/** Shortest time between two redraws of the charts, ms. */
const CHART_MS = 100;

interface Stat {
  readonly value: HTMLElement;
}

function stat(parent: HTMLElement, key: string): Stat {
  const value = h('span', { class: 'v' }, '–');
  parent.append(h('div', { class: 'stat' }, value, h('span', { class: 'k' }, key)));
  return { value };
}

/** A learning rate with 3 significant digits (1e-4 stays readable). */
function lrText(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '–' : v.toPrecision(3);
}

/** Test-set values placed at the step where each epoch ended (null elsewhere: drawn as points). */
function atEpochEnds(hist: History, pick: (e: History['epochs'][number]) => number): (number | null)[] {
  const out: (number | null)[] = hist.x.map(() => null);
  for (const e of hist.epochs) if (e.step > 0) out[e.step - 1] = pick(e);
  return out;
}

/**
 * A scale's range: uPlot's padded one from the data, or [lo, hi] while there is no data yet, so
 * that the axes are drawn from the first frame (before the first step, which can take a while).
 */
function orEmpty(lo: number, hi: number, pad: boolean): uPlot.Range.Function {
  return (_u, min, max) => {
    if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) return [lo, hi];
    if (pad) return uPlot.rangeNum(min, max, 0.1, true);
    return [min, max > min ? max : min + 1];
  };
}

export class CurvesView implements View {
  readonly history = new History();
  private readonly stats: Record<'epoch' | 'step' | 'loss' | 'test' | 'ips' | 'ms' | 'lr', Stat>;
  private readonly charts: uPlot[] = [];
  private readonly holders: HTMLElement[] = [];
  private readonly root: HTMLElement;
  private epochs = 0;
  private dirty = true;
  private chartsDrawnAt = -Infinity;

  constructor(body: HTMLElement) {
    const strip = h('div', { class: 'stats', 'aria-live': 'off' });
    const w = t().curves;
    this.stats = {
      epoch: stat(strip, w.stats.epoch),
      step: stat(strip, w.stats.step),
      loss: stat(strip, w.stats.loss),
      test: stat(strip, w.stats.test),
      ips: stat(strip, w.stats.ips),
      ms: stat(strip, w.stats.ms),
      lr: stat(strip, w.stats.lr),
    };
    const grid = h('div', { class: 'charts' });
    this.root = h('div', { class: 'curves' }, strip, grid);
    body.append(this.root);
    const axes = (y: string): uPlot.Axis[] => [
      { label: w.axisStep, size: 34 },
      { label: y, size: 50 },
    ];
    const make = (title: string, y: string, series: uPlot.Series[], range?: [number, number]) => {
      const holder = h('div', { class: 'chart', role: 'img', 'aria-label': title });
      grid.append(holder);
      this.holders.push(holder);
      const chart = new uPlot(
        {
          title,
          width: 280,
          height: 180,
          axes: axes(y),
          legend: { live: false },
          scales: { x: { time: false, range: orEmpty(1, 10, false) }, y: { range: range ?? orEmpty(0, 1, true) } },
          series: [{}, ...series],
        },
        [[], ...series.map(() => [])],
        holder,
      );
      this.charts.push(chart);
      new ResizeObserver(() => {
        const w = holder.clientWidth;
        if (w > 0 && Math.abs(w - chart.width) > 2) chart.setSize({ width: w, height: 180 });
      }).observe(holder);
    };
    const points = { show: true, size: 8 };
    make(w.loss, w.axisLoss, [
      { label: w.sStep, stroke: '#9fb7d0', width: 1 },
      { label: w.sSmoothed, stroke: '#0b62c4', width: 2 },
      { label: w.sTest, stroke: '#d55e00', width: 0, points: { ...points, fill: '#d55e00' }, spanGaps: true },
    ]);
    make(
      w.accuracy,
      w.axisAcc,
      [
        { label: w.sTrain, stroke: '#009e73', width: 2, value: (_u, v) => pct(v) },
        {
          label: w.sTest,
          stroke: '#d55e00',
          width: 0,
          points: { ...points, fill: '#d55e00' },
          spanGaps: true,
          value: (_u, v) => pct(v),
        },
      ],
      [0, 1],
    );
    make(w.throughput, w.axisIps, [{ label: w.axisIps, stroke: '#7b3294', width: 1.5 }]);
    make(w.lrChart, w.axisLr, [{ label: w.sLr, stroke: '#b35806', width: 1.5, value: (_u, v) => lrText(v) }]);
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') this.epochs = e.config.epochs;
    if (this.history.handle(e)) this.dirty = true;
  }

  /**
   * The charts redraw every point, so they are redrawn at most every CHART_MS (the coordinator
   * shares this thread: on a fast GPU steps come faster than frames); the numbers every frame.
   */
  render(now: number): boolean {
    if (!this.dirty) return false;
    const hs = this.history;
    const chartsDue = now - this.chartsDrawnAt >= CHART_MS;
    if (chartsDue) {
      this.chartsDrawnAt = now;
      this.dirty = false;
      const [loss, acc, ips, lr] = this.charts;
      loss?.setData([hs.x, hs.loss, hs.smoothLoss, atEpochEnds(hs, (e) => e.testLoss)]);
      acc?.setData([hs.x, hs.smoothAccuracy, atEpochEnds(hs, (e) => e.testAccuracy)]);
      ips?.setData([hs.x, hs.imagesPerSec]);
      lr?.setData([hs.x, hs.lr]);
    }
    const last = hs.epochs.at(-1);
    this.stats.epoch.value.textContent = this.epochs ? `${hs.epoch + 1} / ${this.epochs}` : '–';
    this.stats.step.value.textContent = hs.stepsPerEpoch
      ? `${hs.x.length ? hs.step + 1 : 0} / ${hs.stepsPerEpoch}`
      : '–';
    this.stats.loss.value.textContent = num(hs.smoothLoss.at(-1) ?? NaN, 4);
    const w = t().curves;
    this.stats.test.value.textContent = last ? pct(last.testAccuracy) : w.afterEpoch;
    this.stats.ips.value.textContent = rate(hs.imagesPerSec.at(-1) ?? NaN);
    this.stats.ms.value.textContent = duration(hs.stepMs.at(-1) ?? NaN);
    this.stats.lr.value.textContent = lrText(hs.lr.at(-1) ?? NaN);
    this.root.dataset.steps = String(hs.x.length);
    const [lossEl, accEl, ipsEl, lrEl] = this.holders;
    const n = w.steps(hs.x.length);
    lossEl?.setAttribute(
      'aria-label',
      w.lossLabel(n, num(hs.smoothLoss.at(-1) ?? NaN, 4), last ? w.testLoss(num(last.testLoss, 4)) : ''),
    );
    accEl?.setAttribute(
      'aria-label',
      w.accLabel(n, pct(hs.smoothAccuracy.at(-1) ?? NaN), last ? w.testAcc(pct(last.testAccuracy)) : ''),
    );
    ipsEl?.setAttribute('aria-label', w.ipsLabel(n, rate(hs.imagesPerSec.at(-1) ?? NaN)));
    lrEl?.setAttribute('aria-label', w.lrLabel(n, lrText(hs.lr.at(-1) ?? NaN)));
    return !chartsDue; // still dirty: come back next frame
  }

  reset(): void {
    this.history.reset();
    this.chartsDrawnAt = -Infinity;
    this.epochs = 0;
    this.dirty = true;
  }
}
