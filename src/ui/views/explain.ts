// The short explanation beside every view, in the page's language (the words are in ../i18n/), each
// ending in links to the PyTorch / DeepSpeed documentation it summarises.
import { docLinkOf, para, t, type DocKey } from '../i18n/index.ts';
import type { Messages } from '../i18n/en.ts';

export interface Explanation {
  readonly title: string;
  readonly explanation: (Node | string)[];
  readonly links: HTMLAnchorElement[];
}

export type ExplainKey = keyof Messages['explain'];

/** Which documentation each view links to. */
const LINKS: Record<ExplainKey, readonly DocKey[]> = {
  training: ['ddpTutorial', 'ddp'],
  memory: ['dp', 'ddpNotDp', 'balanced', 'zero', 'zeroOptimizer', 'memory'],
  compare: ['ddpInsteadOfDp', 'zero'],
  log: ['ddpTutorial'],
  ring: ['ddpNotes', 'ddp'],
  shards: ['sampler'],
  samples: ['cifarTutorial'],
  timeline: ['perfetto', 'ddpInternals'],
  calc: ['zeroPaper', 'zero'],
  lessons: ['ddpTutorial', 'zero'],
};

export function explanation(key: ExplainKey): Explanation {
  const words = t().explain[key];
  return { title: words.title, explanation: words.body.map(para), links: LINKS[key].map(docLinkOf) };
}
