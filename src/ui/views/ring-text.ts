// The ring view's words (from ../i18n/): the legend, the per-rank counters table and the phrases
// that describe what is moving.
import type { Mode } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import type { TrainEvent } from '../../runtime/events.ts';
import { h } from '../dom.ts';
import { bytes, duration } from '../format.ts';
import { t } from '../i18n/index.ts';
import { rankColor } from '../palette.ts';
import { explanation, type Explanation } from './explain.ts';
import { PHASE_COLOR } from './ring-layout.ts';
import { collectiveAt, opLabel, pairTotals, type Flight, type Op, type Phase, type Replay } from './ring-replay.ts';
import type { Warp } from './ring-warp.ts';

export const isDataParallelMode = (m: Mode): boolean => PARALLEL_MODES[m].topology === 'star';

/** What one ring step of a collective's phase does. */
export function phaseText(op: Op, phase: Phase): string {
  const w = t().ring.phase;
  if (op === 'reduceScatter') return w.reduceScatter;
  if (op === 'allGather') return w.allGather;
  if (op === 'allReduceScalars') return w.scalars;
  if (phase === 'reduce-scatter') return w.rs;
  if (phase === 'all-gather') return w.ag;
  return w.other;
}

/** The line above the ring at real time t: which collective, phase and ring step is running. */
export function ringPhase(head: string, r: Replay, t0: number, w: Warp): string {
  const words = t().ring;
  const k = collectiveAt(r, t0);
  const c = r.collectives[k];
  if (!c) return words.waitingFirst(head);
  const n = r.collectives.length;
  const which = words.which(opLabel(c.op), k + 1, n);
  if (t0 > c.t1) {
    const wait = k + 1 >= n ? '' : w.isSkipped(t0) ? words.skippedWait : words.nextWait;
    return words.doneLine(head, which, wait);
  }
  let active: Flight | undefined;
  for (const f of r.flights) {
    if (f.t0 > t0) break;
    if (f.coll === c.coll && f.op === c.op) active = f;
  }
  const phase = active?.phase ?? 'reduce-scatter';
  return words.stepLine(head, which, words.phaseName[phase], (active?.step ?? 0) + 1, c.steps, phaseText(c.op, phase));
}

/** The line above the ring when motion is reduced: only end states are shown. */
export function reducedPhase(head: string, r: Replay): string {
  const ops = [...new Set(r.collectives.map((c) => opLabel(c.op)))].join(', ');
  return t().ring.reduced(head, r.collectives.length, ops);
}

/** The phase line of a DataParallel step at real time t: the message that started last. */
export function dpPhase(
  head: string,
  flights: readonly Flight[],
  names: ReadonlyMap<Flight, string>,
  time: number,
): string {
  const words = t().ring;
  let last: Flight | undefined;
  for (const f of flights) {
    if (f.t0 > time) break;
    last = f;
  }
  if (!last) return words.dpPreparing(head);
  const name = names.get(last);
  const dir = last.from === 0 ? words.dpOut : words.dpBack;
  return words.dpLine(head, dir, name ? `${name}, ${words.dp[name] ?? ''}` : words.dpMessage(bytes(last.bytes)));
}

export function dpOutcome(r: Replay, world: number): string {
  const { out, back } = pairTotals(r, world);
  const words = t().ring;
  const parts = out.slice(1).map((o, i) => words.dpPair(i + 1, bytes(o), bytes(back[i + 1] ?? 0)));
  return parts.length > 0 ? words.dpOutcome(parts.join(' · ')) : '';
}

function factor(x: number): string {
  return x >= 10 ? x.toFixed(0) : x.toFixed(1);
}

/** "40× slower than real time" (or faster, for a step that took longer than the replay). */
export function slowdown(scale: number): string {
  const words = t().ring;
  if (scale >= 1.05) return words.slower(factor(scale));
  if (scale <= 0.95) return words.faster(factor(1 / scale));
  return words.realSpeed;
}

export function replayNote(scale: number, reducedMotion: boolean): string {
  return reducedMotion ? t().ring.reducedMotion : slowdown(scale);
}

/** One row per worker: bytes it sent, time it spent in collectives, transfers it started. */
export function statsRows(ev: Extract<TrainEvent, { type: 'step' }>, replay: Replay): HTMLTableRowElement[] {
  const sends = new Map<number, number>();
  for (const f of replay.flights) sends.set(f.from, (sends.get(f.from) ?? 0) + 1);
  return ev.workers.map((w) =>
    h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row' },
        h('span', { class: 'swatch', style: `background:${rankColor(w.rank)}` }),
        String(w.rank),
      ),
      h('td', {}, bytes(w.commBytes)),
      h('td', {}, duration(w.commMs)),
      h('td', {}, replay.events > 0 ? String(sends.get(w.rank) ?? 0) : '–'),
    ),
  );
}

export function legend(): HTMLElement {
  const words = t().ring;
  const item = (color: string, text: string) =>
    h('span', {}, h('span', { class: 'swatch', style: `background:${color}` }), text);
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'legend' },
      item(PHASE_COLOR['reduce-scatter'], words.legendRs),
      item(PHASE_COLOR['all-gather'], words.legendAg),
      item(PHASE_COLOR.broadcast, words.legendDp),
    ),
    h('p', { class: 'ring-hint' }, words.hint),
  );
}

export function ringExplanation(): Explanation {
  return explanation('ring');
}
