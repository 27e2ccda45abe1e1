// Colours shared by every view: one per rank (ring, shards, memory, curves) and one per memory
// category. Chosen to stay distinguishable on a projector and for common colour-vision deficiencies
// (Okabe-Ito based); text never relies on colour alone (every bar and node is also labelled).
import type { MemoryCategory } from '../memory-categories.ts';
import { t } from './i18n/index.ts';

export const RANK_COLORS = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#56b4e9',
  '#d55e00',
  '#f0e442',
  '#7f7f7f',
] as const;

export function rankColor(rank: number): string {
  return RANK_COLORS[rank % RANK_COLORS.length] ?? '#7f7f7f';
}

export const CATEGORY_COLORS: Record<MemoryCategory, string> = {
  parameters: '#0072b2',
  gradients: '#e69f00',
  optimizer: '#cc79a7',
  activations: '#009e73',
  communication: '#d55e00',
  other: '#9a9a9a',
};

/** A memory category's name in the page's language. */
export function categoryLabel(c: MemoryCategory): string {
  return t().memory.categories[c];
}
