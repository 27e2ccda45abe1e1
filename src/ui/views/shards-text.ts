// The shard view's words: its explanation card (with the PyTorch link), the per-rank index lists,
// the legend and the sentences about padding, reshuffling and DataParallel.
import { h } from '../dom.ts';
import { pct } from '../format.ts';
import { rankColor } from '../palette.ts';
import type { Assignment } from './shards-model.ts';
import { t } from '../i18n/index.ts';
import { explanation, type Explanation } from './explain.ts';

const FIRST = 12;

/** The run settings the sentences depend on. */
export interface ShardSettings {
  readonly shuffle: boolean;
  readonly dropLast: boolean;
  readonly seed: number;
  readonly dp: boolean;
}

/** "rank 1 · 2500 samples: 4821, 77, 9120, …" for every rank. */
export function rankLines(a: Assignment, s: ShardSettings): HTMLLIElement[] {
  return a.shards.map((ix, r) => {
    const sw = h('span', { class: 'swatch', style: `background:${rankColor(r)}` });
    if (s.dp && r > 0) return h('li', {}, sw, h('b', {}, t().shards.rank(r)), t().shards.readsNone);
    const head = Array.from(ix.subarray(0, FIRST), String).join(', ');
    const more = ix.length > FIRST ? ', …' : '';
    return h(
      'li',
      {},
      sw,
      h('b', {}, t().shards.rank(r)),
      t().shards.samples(ix.length),
      h('span', { class: 'shards-ix' }, head + more),
    );
  });
}

export function headline(a: Assignment, world: number): string {
  const w = t().shards;
  const parts = [w.headEpoch(a.epoch), w.headRanks(world), w.headTotal(a.total), w.headDistinct(a.distinct)];
  parts.push(a.repeatedCount > 0 ? w.headPadded(a.repeatedCount) : w.headNoPad);
  if (a.missing > 0) parts.push(w.headMissing(a.missing));
  return parts.join(' · ');
}

/** Where padding or drop_last changed the index list, or '' when neither did. */
export function paddingLine(a: Assignment, world: number, s: ShardSettings): string {
  const w = t().shards;
  if (s.dp && a.repeatedCount > 0) return w.dpPad(world, a.repeatedCount, a.repeated.slice(0, 8).join(', '));
  if (a.repeatedCount > 0) {
    const list = a.repeated
      .slice(0, 8)
      .map((i) => w.padPair(i, String(a.owner[i] ?? '?'), String(a.second[i] ?? '?')))
      .join(', ');
    return w.pad(world, a.repeatedCount, list, a.repeatedCount > 8);
  }
  if (a.missing > 0 && s.dropLast) return w.dropLast(a.missing);
  return '';
}

/** How set_epoch changed the assignment since the previous epoch. */
export function movedLine(
  before: Assignment | null,
  a: Assignment,
  changed: number,
  compared: number,
  world: number,
  s: ShardSettings,
): string {
  const w = t().shards;
  if (!before) return w.nextCompared;
  const e = `set_epoch(${a.epoch})`;
  if (world === 1) return w.oneRank;
  if (s.dp) return w.dpMoved(e);
  if (!s.shuffle) return w.noShuffle(e, pct(compared ? changed / compared : 0));
  return w.moved(e, s.seed, a.epoch, pct(changed / Math.max(1, compared)), before.epoch, pct((world - 1) / world));
}

export function note(world: number, s: ShardSettings): string {
  if (s.dp) return t().shards.dpNote;
  if (!s.shuffle) return t().shards.stripes(world);
  return '';
}

export function gridLegend(world: number): HTMLElement {
  const item = (color: string, text: string) =>
    h('span', {}, h('span', { class: 'swatch', style: `background:${color}` }), text);
  return h(
    'div',
    { class: 'legend' },
    ...Array.from({ length: world }, (_, r) => item(rankColor(r), t().shards.rank(r))),
    item('#1b1f24', t().shards.padded),
    item('#e1e5ea', t().shards.notSampledKey),
  );
}

export function shardsExplanation(): Explanation {
  return explanation('shards');
}
