// The page's language: English or Simplified Chinese, chosen once at load from `?lang=`, else the
// browser's languages; the header's switch reloads the page with `?lang=` (every view is built in
// one language, so nothing has to be re-rendered). View code asks t() for its words; rich() turns
// a table string's `code` and **bold** marks into nodes; docLinkOf() gives the Chinese page of a
// documentation link where one exists.
import { en, type Messages } from './en.ts';
import { zh } from './zh.ts';

export const LANGS = ['en', 'zh'] as const;
export type Lang = (typeof LANGS)[number];

const TABLES: Record<Lang, Messages> = { en, zh };

/** `?lang=zh` wins; else the first of the browser's languages that the page has; else English. */
export function pickLang(search: string, languages: readonly string[]): Lang {
  const asked = new URLSearchParams(search).get('lang');
  const known = (x: string | null | undefined): Lang | undefined => {
    const base = x?.toLowerCase().split('-')[0];
    return LANGS.find((l) => l === base);
  };
  return known(asked) ?? languages.map((l) => known(l)).find((l) => l !== undefined) ?? 'en';
}

let current: Lang =
  typeof location === 'undefined' || typeof navigator === 'undefined'
    ? 'en'
    : pickLang(location.search, navigator.languages);

export function lang(): Lang {
  return current;
}

/** Changes the language of what is built from now on (tests; the page reloads instead). */
export function setLang(l: Lang): void {
  current = l;
}

/** The words of the current language. */
export function t(): Messages {
  return TABLES[current];
}

/** The words of one language (the switch shows each language's name in itself). */
export function messagesOf(l: Lang): Messages {
  return TABLES[l];
}

type Inline = Node | string;

/** A table string with `code` and **bold** marks, as text and element nodes. */
export function rich(text: string): Inline[] {
  const out: Inline[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let at = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    const el = document.createElement(m[1] !== undefined ? 'code' : 'strong');
    el.textContent = m[1] ?? m[2] ?? '';
    out.push(el);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** A paragraph of rich() text. */
export function para(text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.append(...rich(text));
  return p;
}

/**
 * Documentation the page links to: the English page, and the Chinese one where it exists (the
 * ApacheCN translation of PyTorch 2.0's tutorials and notes; only pages whose translation was
 * found are listed). DeepSpeed, the API reference pages and Perfetto have no Chinese edition; in
 * Chinese their links say they are in English.
 */
export const DOCS = {
  ddpTutorial: {
    en: 'https://pytorch.org/tutorials/intermediate/ddp_tutorial.html',
    zh: 'https://pytorch.apachecn.org/2.0/tutorials/intermediate/ddp_tutorial',
  },
  ddp: { en: 'https://pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html' },
  dp: { en: 'https://pytorch.org/docs/stable/generated/torch.nn.DataParallel.html' },
  ddpNotDp: {
    en: 'https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel',
    zh: 'https://pytorch.apachecn.org/2.0/docs/notes/cuda',
  },
  ddpInsteadOfDp: {
    en: 'https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel',
    zh: 'https://pytorch.apachecn.org/2.0/docs/notes/cuda',
  },
  balanced: { en: 'https://github.com/kimiyoung/transformer-xl/blob/master/pytorch/utils/data_parallel.py' },
  zero: { en: 'https://www.deepspeed.ai/tutorials/zero/' },
  zeroOptimizer: {
    en: 'https://pytorch.org/docs/stable/distributed.optim.html',
    zh: 'https://pytorch.apachecn.org/2.0/docs/distributed.optim',
  },
  memory: { en: 'https://pytorch.org/docs/stable/generated/torch.cuda.memory_allocated.html' },
  ddpNotes: {
    en: 'https://pytorch.org/docs/stable/notes/ddp.html',
    zh: 'https://pytorch.apachecn.org/2.0/docs/notes/ddp',
  },
  ddpInternals: {
    en: 'https://pytorch.org/docs/stable/notes/ddp.html',
    zh: 'https://pytorch.apachecn.org/2.0/docs/notes/ddp',
  },
  sampler: {
    en: 'https://pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler',
    zh: 'https://pytorch.apachecn.org/2.0/docs/data',
  },
  cifarTutorial: { en: 'https://pytorch.org/tutorials/beginner/blitz/cifar10_tutorial.html' },
  perfetto: { en: 'https://ui.perfetto.dev' },
  zeroPaper: { en: 'https://arxiv.org/abs/1910.02054' },
  dsConfig: { en: 'https://www.deepspeed.ai/docs/config-json/' },
  torchrun: {
    en: 'https://pytorch.org/docs/stable/elastic/run.html',
  },
  checkpointTutorial: { en: 'https://pytorch.org/tutorials/beginner/saving_loading_models.html' },
  amp: { en: 'https://pytorch.org/docs/stable/amp.html', zh: 'https://pytorch.apachecn.org/2.0/docs/amp' },
  dsFp16: { en: 'https://www.deepspeed.ai/docs/config-json/#fp16-training-options' },
  distDebug: { en: 'https://pytorch.org/docs/stable/distributed.html#debugging-torch-distributed-applications' },
} as const satisfies Record<string, { en: string; zh?: string }>;

export type DocKey = keyof typeof DOCS & keyof Messages['docs'];

/** A documentation link (new tab) in the current language, saying so where the page is English only. */
export function docLinkOf(key: DocKey): HTMLAnchorElement {
  const d: { en: string; zh?: string } = DOCS[key];
  const words = t().docs;
  const a = document.createElement('a');
  const translated = current !== 'en' && d.zh !== undefined;
  a.href = translated && d.zh ? d.zh : d.en;
  a.target = '_blank';
  a.rel = 'noopener';
  a.textContent = words[key] + (current !== 'en' && !translated ? words.englishOnly : '');
  if (translated) a.hreflang = 'zh';
  else if (current !== 'en') a.hreflang = 'en';
  return a;
}

/**
 * A failed run's error (src/runtime's RankFailedError: `rank R failed during WHAT: REASON`) in the
 * current language; the worker's own reason stays as the worker wrote it.
 */
export function localizeRunError(message: string): string {
  if (current === 'en') return message;
  const m = /^rank (\d+) failed during (.+?): (.*)$/s.exec(message);
  if (!m) return message;
  const w = t().issues;
  const step = /^step (\d+) of epoch (\d+)$/.exec(m[2] ?? '');
  return w.rankFailed(m[1] ?? '', step ? w.stepOf(step[1] ?? '', step[2] ?? '') : ` ${m[2] ?? ''} `, m[3] ?? '');
}

/**
 * An engine message (validateConfig's wording, src/config.ts and src/parallel/) in the current
 * language; a message of another shape is shown as the engine wrote it.
 */
export function localizeIssue(message: string, label: (field: string) => string): string {
  if (current === 'en') return message;
  const w = t().issues;
  let m = /^(\w+) must be an integer from (\S+) to (\S+) \(got (.*)\)$/.exec(message);
  if (m) return w.int(label(m[1] ?? ''), m[2] ?? '', m[3] ?? '', m[4] ?? '');
  m = /^(\w+) must be a number (>=?) (\S+) and <= (\S+) \(got (.*)\)$/.exec(message);
  if (m) return w.number(label(m[1] ?? ''), m[2] ?? '', m[3] ?? '', m[4] ?? '', m[5] ?? '');
  m = /^(\w+) must be one of (.*) \(got (.*)\)$/.exec(message);
  if (m) return w.oneOf(label(m[1] ?? ''), m[2] ?? '', m[3] ?? '');
  m = /^(\w+) must be true or false \(got (.*)\)$/.exec(message);
  if (m) return w.bool(label(m[1] ?? ''), m[2] ?? '');
  m = /^(\S+) needs at least 2 workers$/.exec(message);
  if (m) return w.needsTwo(m[1] ?? '');
  m = /^bf16 is not supported with mode (\S+): bf16 mixed precision runs with (.*)$/.exec(message);
  if (m) return w.bf16Mode(m[1] ?? '', m[2] ?? '');
  m = /^gpu0Bsz \((\d+)\) cannot exceed the global batch \((\d+)\)$/.exec(message);
  if (m) return w.gpu0(m[1] ?? '', m[2] ?? '');
  return message;
}
