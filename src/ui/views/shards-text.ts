// The shard view's words: its explanation card (with the PyTorch link), the per-rank index lists,
// the legend and the sentences about padding, reshuffling and DataParallel.
import { code, docLink, h, p } from '../dom.ts';
import { pct } from '../format.ts';
import { rankColor } from '../palette.ts';
import type { Assignment } from './shards-model.ts';

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
    if (s.dp && r > 0)
      return h(
        'li',
        {},
        sw,
        h('b', {}, `rank ${r}`),
        ' · reads no data: receives its slice of every batch from rank 0',
      );
    const head = Array.from(ix.subarray(0, FIRST), String).join(', ');
    const more = ix.length > FIRST ? ', …' : '';
    return h(
      'li',
      {},
      sw,
      h('b', {}, `rank ${r}`),
      ` · ${ix.length.toLocaleString('en-US')} samples: `,
      h('span', { class: 'shards-ix' }, head + more),
    );
  });
}

export function headline(a: Assignment, world: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const parts = [
    `Epoch ${a.epoch}`,
    `${world} rank${world === 1 ? '' : 's'}`,
    `${n(a.total)} samples handed out`,
    `${n(a.distinct)} distinct indices`,
  ];
  parts.push(a.repeatedCount > 0 ? `${n(a.repeatedCount)} padded` : 'no padding');
  if (a.missing > 0) parts.push(`${n(a.missing)} not sampled`);
  return parts.join(' · ');
}

/** Where padding or drop_last changed the index list, or '' when neither did. */
export function paddingLine(a: Assignment, world: number, s: ShardSettings): string {
  if (s.dp && a.repeatedCount > 0) {
    return `The ${world} per-rank samplers pad the index list to a multiple of ${world}, so ${a.repeatedCount} ${a.repeatedCount === 1 ? 'index is' : 'indices are'} loaded twice: ${a.repeated.slice(0, 8).join(', ')}.`;
  }
  if (a.repeatedCount > 0) {
    const list = a.repeated
      .slice(0, 8)
      .map((i) => `${i} (ranks ${a.owner[i] ?? '?'} and ${a.second[i] ?? '?'})`)
      .join(', ');
    return `Padding: the dataset does not divide by ${world}, so DistributedSampler repeats the first ${a.repeatedCount === 1 ? 'index' : `${a.repeatedCount} indices`} of its list to give every rank the same count (dark cells, or split cells showing both ranks): ${list}${a.repeatedCount > 8 ? ', …' : ''}.`;
  }
  if (a.missing > 0 && s.dropLast)
    return `drop_last=True: the ${a.missing} indices that did not fit evenly are skipped this epoch (light grey).`;
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
  if (!before) return 'The next epoch will be compared with this one.';
  const e = `set_epoch(${a.epoch})`;
  if (world === 1) return 'One rank gets every index; each epoch only changes their order.';
  if (s.dp) return `${e} changed the order; device 0 still loads every index.`;
  if (!s.shuffle)
    return `shuffle=False: ${e} changes nothing (${pct(compared ? changed / compared : 0)} of the indices moved).`;
  return (
    `${e} reshuffled with seed ${s.seed} + ${a.epoch}: ${pct(changed / Math.max(1, compared))} of the indices went to a different rank than in epoch ${before.epoch} ` +
    `(a random reshuffle moves about (W−1)/W = ${pct((world - 1) / world)}).`
  );
}

export function note(world: number, s: ShardSettings): string {
  if (s.dp) {
    return (
      "DataParallel: one process (device 0) loads every sample. Each step its batch is every rank's DistributedSampler batch, in rank order, " +
      "which it splits into chunks and sends to the replicas; so all cells are rank 0's colour."
    );
  }
  if (!s.shuffle) return `shuffle=False: rank r gets r, r+${world}, r+${2 * world}, …, so the ranks form stripes.`;
  return '';
}

export function gridLegend(world: number): HTMLElement {
  const item = (color: string, text: string) =>
    h('span', {}, h('span', { class: 'swatch', style: `background:${color}` }), text);
  return h(
    'div',
    { class: 'legend' },
    ...Array.from({ length: world }, (_, r) => item(rankColor(r), `rank ${r}`)),
    item('#1b1f24', 'padded (twice)'),
    item('#e1e5ea', 'not sampled'),
  );
}

export function shardsExplanation(): { title: string; explanation: (Node | string)[]; links: HTMLAnchorElement[] } {
  return {
    title: 'Data shards (DistributedSampler)',
    explanation: [
      p(
        code('DistributedSampler'),
        ' gives each rank its own part of the dataset: it shuffles all indices with a generator seeded ',
        code('seed + epoch'),
        ', pads the list by repeating its first indices until it divides by W (or cuts the tail with ',
        code('drop_last=True'),
        '), and rank r takes every W-th index starting at r.',
      ),
      p(
        'Call ',
        code('sampler.set_epoch(epoch)'),
        ' before each epoch, or every epoch repeats the same order. ',
        'Compare two epochs to see how many indices move to another rank. With ',
        code('shuffle=False'),
        ' rank r gets r, r+W, r+2W, ….',
      ),
      p(
        'The grid is the dataset, one cell per index, coloured by the rank that trains on it. ',
        code('DataParallel'),
        ' is one process: device 0 loads every batch and splits it among the devices.',
      ),
    ],
    links: [
      docLink(
        'https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler',
        'torch.utils.data.distributed.DistributedSampler',
      ),
    ],
  };
}
