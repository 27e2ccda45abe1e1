// The ring view's words: its explanation card (with the PyTorch links), the legend, the per-rank
// counters table and the phrases that describe what is moving.
import type { Mode } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import type { TrainEvent } from '../../runtime/events.ts';
import { code, docLink, h, p } from '../dom.ts';
import { bytes, duration } from '../format.ts';
import { rankColor } from '../palette.ts';
import { PHASE_COLOR } from './ring-layout.ts';
import { collectiveAt, OP_LABEL, pairTotals, type Flight, type Op, type Phase, type Replay } from './ring-replay.ts';
import type { Warp } from './ring-warp.ts';

export const isDataParallelMode = (m: Mode): boolean => PARALLEL_MODES[m].topology === 'star';

/** What one ring step of a collective's phase does. */
export function phaseText(op: Op, phase: Phase): string {
  if (op === 'reduceScatter')
    return 'each rank adds the gradient chunk it receives; at the end rank r owns chunk r summed over all ranks, its ZeRO shard.';
  if (op === 'allGather')
    return "each rank's updated parameter shard travels around the ring; at the end every rank has all the parameters.";
  if (op === 'allReduceScalars')
    return "each rank's partial sums (here the squared gradient norm of its shard) travel around the ring; then every rank adds them up.";
  if (phase === 'reduce-scatter')
    return 'each rank adds the chunk it receives to its own; at the end each rank owns one fully reduced chunk.';
  if (phase === 'all-gather')
    return 'the reduced chunks travel around the ring and are copied; at the end every rank has all of them.';
  return 'one rank sends, the next receives.';
}

/** The line above the ring at real time t: which collective, phase and ring step is running. */
export function ringPhase(head: string, r: Replay, t: number, w: Warp): string {
  const k = collectiveAt(r, t);
  const c = r.collectives[k];
  if (!c) return `${head}: waiting for the first collective.`;
  const n = r.collectives.length;
  const which = `${OP_LABEL[c.op]}${n > 1 ? ` ${k + 1} of ${n}` : ''}`;
  if (t > c.t1) {
    const wait =
      k + 1 >= n
        ? ''
        : w.isSkipped(t)
          ? '; the GPUs compute until the next collective starts (skipped in the replay)'
          : '; waiting for the next collective';
    return `${head} · ${which} done${wait}.`;
  }
  let active: Flight | undefined;
  for (const f of r.flights) {
    if (f.t0 > t) break;
    if (f.coll === c.coll && f.op === c.op) active = f;
  }
  const phase = active?.phase ?? 'reduce-scatter';
  return `${head} · ${which} · ${phase}, ring step ${(active?.step ?? 0) + 1} of ${c.steps}: ${phaseText(c.op, phase)}`;
}

/** The line above the ring when motion is reduced: only end states are shown. */
export function reducedPhase(head: string, r: Replay): string {
  const ops = [...new Set(r.collectives.map((c) => OP_LABEL[c.op]))].join(', ');
  return `${head} · ${r.collectives.length} collective${r.collectives.length === 1 ? '' : 's'} (${ops}). Motion is reduced, so each rank shows what it held after each phase.`;
}

/** DataParallel's messages, as torch.nn.DataParallel names the steps. */
const DP_TEXT: Record<string, string> = {
  size: 'how many samples each replica gets this step',
  params: 'a copy of the parameters (replicate)',
  inputs: "each replica's slice of the batch (scatter)",
  logits: 'the outputs, gathered on device 0 to compute the loss (gather)',
  dlogits: "the loss gradient for each replica's outputs, so it can run backward",
  grads: "the replicas' parameter gradients, summed into device 0's (reduce-add)",
};

/** The phase line of a DataParallel step at real time t: the message that started last. */
export function dpPhase(
  head: string,
  flights: readonly Flight[],
  names: ReadonlyMap<Flight, string>,
  t: number,
): string {
  let last: Flight | undefined;
  for (const f of flights) {
    if (f.t0 > t) break;
    last = f;
  }
  if (!last) return `${head} · DataParallel: device 0 is preparing the batch.`;
  const name = names.get(last);
  const dir = last.from === 0 ? 'device 0 → replicas' : 'replicas → device 0';
  return `${head} · DataParallel, ${dir}: ${name ? `${name}, ${DP_TEXT[name] ?? ''}` : `${bytes(last.bytes)} message`}.`;
}

export function dpOutcome(r: Replay, world: number): string {
  const { out, back } = pairTotals(r, world);
  const parts = out.slice(1).map((o, i) => `rank ${i + 1}: ${bytes(o)} out, ${bytes(back[i + 1] ?? 0)} back`);
  return parts.length > 0
    ? `Device 0's traffic this step: ${parts.join(' · ')}. The replicas never talk to each other.`
    : '';
}

function factor(x: number): string {
  return x >= 10 ? x.toFixed(0) : x.toFixed(1);
}

/** "40× slower than real time" (or faster, for a step that took longer than the replay). */
export function slowdown(scale: number): string {
  if (scale >= 1.05) return `replayed ${factor(scale)}× slower than real time`;
  if (scale <= 0.95) return `replayed ${factor(1 / scale)}× faster than real time`;
  return 'replayed at real speed';
}

export function replayNote(scale: number, reducedMotion: boolean): string {
  return reducedMotion ? 'reduced motion: showing where the chunks ended up' : slowdown(scale);
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
  const item = (color: string, text: string) =>
    h('span', {}, h('span', { class: 'swatch', style: `background:${color}` }), text);
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'legend' },
      item(PHASE_COLOR['reduce-scatter'], 'reduce-scatter chunk'),
      item(PHASE_COLOR['all-gather'], 'all-gather chunk'),
      item(PHASE_COLOR.broadcast, 'DataParallel message (size)'),
    ),
    h(
      'p',
      { class: 'ring-hint' },
      "These are the workers' real transfers, replayed in slow motion. ",
      'A chunk travels from the moment its sender posts it until the neighbour has received it and added it in. ',
      'A slow chunk waited for a neighbour that was still busy, for example still running backward.',
    ),
  );
}

export function ringExplanation(): { title: string; explanation: (Node | string)[]; links: HTMLAnchorElement[] } {
  return {
    title: 'Ring all-reduce',
    explanation: [
      p(
        'In DDP every worker computes gradients on its own batch, then all workers average them. ',
        'The workers form a ring: rank r only sends to rank r+1. The gradient is cut into W chunks ',
        code('c0'),
        '…',
        code('c(W-1)'),
        '.',
      ),
      p(
        h('strong', {}, 'Reduce-scatter'),
        ' (W−1 steps): each step every rank passes one chunk on and adds the one it receives, ',
        'so each rank ends up owning one chunk summed over all ranks. ',
        h('strong', {}, 'All-gather'),
        " (W−1 more steps): the summed chunks go round once more. Each rank sends 2(W−1)/W times the gradient's size: under twice it, however many workers.",
      ),
      p(
        "Like PyTorch's ",
        code('DistributedDataParallel'),
        ', webddp reduces gradient buckets (',
        code('bucket_cap_mb'),
        ', last layers first) while backward is still running, and divides by W first, so the sum is the mean. ',
        'ZeRO runs the halves apart: reduce-scatter the gradients, each rank updates its shard, all-gather the parameters.',
      ),
      p(
        code('DataParallel'),
        ' has no ring: one process on device 0 scatters inputs, copies parameters to every replica, ',
        'gathers outputs and sums the gradients on device 0.',
      ),
    ],
    links: [
      docLink('https://pytorch.org/docs/stable/notes/ddp.html', 'DDP design notes'),
      docLink(
        'https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html',
        'torch.nn.parallel.DistributedDataParallel',
      ),
    ],
  };
}
