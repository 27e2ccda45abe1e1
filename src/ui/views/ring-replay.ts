// The ring view's model of one step's communication, built from the real transfer events the
// workers recorded: each send is paired with its receive (same collective, ring step, link and
// chunk), giving a "flight" from the send time to the receive time, plus what every rank holds
// after each phase. Pure data, no DOM: the view replays it in slow motion.
import type { TransferEvent } from '../../comm/link.ts';
import { t } from '../i18n/index.ts';

export type Phase = TransferEvent['phase'];
export type Op = TransferEvent['op'];

/** One chunk (or, on a DataParallel pair link, one slice of a message) moving from `from` to `to`. */
export interface Flight {
  readonly from: number;
  readonly to: number;
  readonly chunk: number;
  readonly bytes: number;
  readonly op: Op;
  readonly coll: number;
  readonly phase: Phase;
  /** Ring step within its collective (0-based). */
  readonly step: number;
  /** Send and receive times, ms after the step's first event. */
  readonly t0: number;
  readonly t1: number;
}

/** Something a rank holds from time `t` on (ms after the first event); `text` '' clears it. */
export interface Milestone {
  readonly rank: number;
  readonly t: number;
  readonly text: string;
}

/** One collective call of the step (ring modes), in call order. */
export interface Collective {
  readonly op: Op;
  readonly coll: number;
  /** Ring steps it took (reduce-scatter steps + all-gather steps). */
  readonly steps: number;
  readonly t0: number;
  readonly t1: number;
  /** Chunk each rank held fully reduced at the end of its reduce-scatter (rank -> chunk). */
  readonly owned: ReadonlyMap<number, number>;
}

export interface Replay {
  readonly flights: readonly Flight[];
  readonly milestones: readonly Milestone[];
  readonly collectives: readonly Collective[];
  /** Real time from the first to the last event, ms. */
  readonly span: number;
  readonly events: number;
}

/** Readable name of a collective, in the page's language. */
export function opLabel(op: Op): string {
  return t().ring.opLabel[op];
}

const key = (e: TransferEvent): string => `${e.op}|${e.coll}|${e.step}|${e.from}|${e.to}|${e.chunk}`;

/** Pairs sends with receives; an unmatched event becomes an instantaneous flight. */
export function buildReplay(events: readonly TransferEvent[]): Replay {
  if (events.length === 0) return { flights: [], milestones: [], collectives: [], span: 0, events: 0 };
  let first = Infinity,
    last = -Infinity;
  for (const e of events) {
    first = Math.min(first, e.t);
    last = Math.max(last, e.t);
  }
  const sends = new Map<string, TransferEvent[]>();
  for (const e of events)
    if (e.kind === 'send') {
      const k = key(e);
      const q = sends.get(k);
      if (q) q.push(e);
      else sends.set(k, [e]);
    }
  const flights: Flight[] = [];
  const fly = (e: TransferEvent, t0: number, t1: number): void => {
    flights.push({
      from: e.from,
      to: e.to,
      chunk: e.chunk,
      bytes: e.bytes,
      op: e.op,
      coll: e.coll,
      phase: e.phase,
      step: e.step,
      t0: t0 - first,
      t1: t1 - first,
    });
  };
  for (const e of events) {
    if (e.kind !== 'recv') continue;
    const s = sends.get(key(e))?.shift();
    fly(s ?? e, s ? s.t : e.t, Math.max(e.t, s?.t ?? e.t));
  }
  for (const q of sends.values()) for (const s of q) fly(s, s.t, s.t);
  flights.sort((a, b) => a.t0 - b.t0 || a.t1 - b.t1);
  const { milestones, collectives } = progress(events, first);
  return { flights, milestones, collectives, span: last - first, events: events.length };
}

/** What each rank holds over time (ring collectives only; DataParallel's pair links have none). */
function progress(
  events: readonly TransferEvent[],
  first: number,
): { milestones: Milestone[]; collectives: Collective[] } {
  const byColl = new Map<string, TransferEvent[]>();
  for (const e of events) {
    if (e.phase === 'broadcast') continue;
    const k = `${e.op}|${e.coll}`;
    const list = byColl.get(k);
    if (list) list.push(e);
    else byColl.set(k, [e]);
  }
  const milestones: Milestone[] = [];
  const collectives: Collective[] = [];
  for (const list of byColl.values()) {
    const e0 = list[0];
    if (!e0) continue;
    const owned = new Map<number, number>();
    const lastRecv = new Map<string, TransferEvent>();
    const firstAt = new Map<number, number>();
    let t0 = Infinity,
      t1 = -Infinity,
      steps = 0;
    for (const e of list) {
      t0 = Math.min(t0, e.t);
      t1 = Math.max(t1, e.t);
      steps = Math.max(steps, e.step + 1);
      const r = e.kind === 'send' ? e.from : e.to;
      firstAt.set(r, Math.min(firstAt.get(r) ?? Infinity, e.t));
      if (e.kind !== 'recv') continue;
      const k = `${e.to}|${e.phase}`;
      const prev = lastRecv.get(k);
      if (!prev || e.step > prev.step) lastRecv.set(k, e);
    }
    for (const [r, t] of firstAt) milestones.push({ rank: r, t: t - first, text: '' });
    for (const e of lastRecv.values()) {
      if (e.phase === 'reduce-scatter') {
        owned.set(e.to, e.chunk);
        milestones.push({ rank: e.to, t: e.t - first, text: t().ring.reducedChunk(e.chunk) });
      } else {
        milestones.push({ rank: e.to, t: e.t - first, text: t().ring.allChunks });
      }
    }
    collectives.push({ op: e0.op, coll: e0.coll, steps, t0: t0 - first, t1: t1 - first, owned });
  }
  collectives.sort((a, b) => a.t0 - b.t0);
  milestones.sort((a, b) => a.t - b.t);
  return { milestones, collectives };
}

/** The latest milestone text of every rank at time t (ms after the first event). */
export function holdings(r: Replay, world: number, t: number): string[] {
  const out = Array.from({ length: world }, () => '');
  for (const m of r.milestones) {
    if (m.t > t) break;
    if (m.rank < world) out[m.rank] = m.text;
  }
  return out;
}

/** What every rank held after each phase of the step's first collective, for reduced motion. */
export function endStates(r: Replay, world: number): string[] {
  const c = r.collectives.find((x) => x.owned.size > 0) ?? r.collectives[0];
  const gathers = c !== undefined && c.op !== 'reduceScatter';
  return Array.from({ length: world }, (_, rank) => {
    const own = c?.owned.get(rank);
    const rs = own === undefined ? '' : t().ring.reducedChunk(own);
    return [rs, gathers ? t().ring.allChunks : ''].filter(Boolean).join(' → ');
  });
}

/** Index of the collective running at time t (the last one started), or -1. */
export function collectiveAt(r: Replay, t: number): number {
  let k = -1;
  r.collectives.forEach((c, i) => {
    if (c.t0 <= t) k = i;
  });
  return k;
}

/** One sentence per phase of the step's first collective: where the chunks ended up. */
export function outcome(r: Replay, world: number): string {
  const c = r.collectives.find((x) => x.owned.size > 0) ?? r.collectives[0];
  if (!c) return '';
  const chunks = `c0–c${world - 1}`;
  const parts: string[] = [];
  if (c.owned.size > 0) {
    const own = [...c.owned]
      .sort((a, b) => a[0] - b[0])
      .map(([rank, ch]) => t().ring.ownPair(rank, ch))
      .join(', ');
    parts.push(t().ring.owns(world, own));
  }
  if (c.op === 'allReduce' || c.op === 'allGather' || c.op === 'allReduceScalars') {
    parts.push(t().ring.gathered(chunks, c.op !== 'allGather'));
  }
  const n = r.collectives.length;
  const ops = [...new Set(r.collectives.map((x) => opLabel(x.op)))].join(', ');
  return t().ring.outcome(n, ops, parts.join(' '));
}

/** What DataParallel's device 0 and a replica exchange each step, in order (src/parallel/data-parallel/root.ts). */
const DP_MESSAGES = ['size', 'params', 'inputs', 'logits', 'dlogits', 'grads'] as const;

/**
 * DataParallel: the name of the message each flight belongs to, from its position among the
 * pair's collectives this step (a replica with no samples this step only gets the size).
 */
export function dpMessageNames(flights: readonly Flight[]): Map<Flight, string> {
  const colls = new Map<number, Set<number>>();
  for (const f of flights) {
    const peer = f.from === 0 ? f.to : f.from;
    const set = colls.get(peer) ?? new Set<number>();
    set.add(f.coll);
    colls.set(peer, set);
  }
  const names = new Map<Flight, string>();
  for (const f of flights) {
    const order = [...(colls.get(f.from === 0 ? f.to : f.from) ?? [])].sort((a, b) => a - b);
    if (order.length !== DP_MESSAGES.length && order.length !== 1) continue;
    const name = DP_MESSAGES[order.indexOf(f.coll)];
    if (name) names.set(f, name);
  }
  return names;
}

/** DataParallel: bytes device 0 sent to and received from each replica. */
export function pairTotals(r: Replay, world: number): { out: number[]; back: number[] } {
  const out = new Array<number>(world).fill(0);
  const back = new Array<number>(world).fill(0);
  for (const f of r.flights) {
    if (f.from === 0 && f.to < world) out[f.to] = (out[f.to] ?? 0) + f.bytes;
    else if (f.to === 0 && f.from < world) back[f.from] = (back[f.from] ?? 0) + f.bytes;
  }
  return { out, back };
}
