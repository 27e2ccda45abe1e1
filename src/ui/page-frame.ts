// The frame of the teaching page around its views: the defaults of a run, the header's language
// switch, the sticky contents list, the banner of a staged failure, and the cards the views live in.
import { MAX_WORKERS } from '../config.ts';
import { parseFaultSpec, type RankFault } from '../runtime/fault.ts';
import type { FormValues } from './controls/field-key.ts';
import { card, h } from './dom.ts';
import { lang, LANGS, messagesOf, t } from './i18n/index.ts';
import { explanation, type ExplainKey } from './views/explain.ts';
import type { WebGpuInfo } from './webgpu-check.ts';

/** Defaults for a GPU, and smaller ones for a software adapter (SwiftShader does ~1-2 GFLOP/s). */
export const GPU_DEFAULTS: FormValues = {
  mode: 'ddp',
  workers: 4,
  batchSize: 32,
  gpu0Bsz: 16,
  optimizer: 'sgd',
  lr: 0.01,
  epochs: 5,
  width: 1,
  trainLimit: 0,
  seed: 0,
  augment: false,
  gradAccum: 1,
  bucketCapMB: 25,
  clipGradNorm: 0,
  momentum: 0.9,
  weightDecay: 0,
  schedule: '',
  fp16: false,
};
export const SOFTWARE_DEFAULTS: FormValues = { ...GPU_DEFAULTS, batchSize: 8, gpu0Bsz: 4, epochs: 3, trainLimit: 2048 };

/** The banner of a page that stages a failure (?fault=RANK:STEP:KIND). */
export function faultNote(spec: string): string {
  const f = parseFaultSpec(spec, MAX_WORKERS);
  const w = t().page;
  const what = f.ok ? w.faultWhat(f.fault.rank, w.faultVerbs[f.fault.kind], f.fault.step) : w.faultBad(f.message);
  return w.faultNote(spec, what);
}

/** The page's staged failure for a run of `workers` (throws, saying what is wrong with the spec). */
export function stagedFault(spec: string, workers: number): RankFault {
  const f = parseFaultSpec(spec, workers);
  if (!f.ok) throw new RangeError(t().run.badFault(f.message));
  return f.fault;
}

/** The views in page order: their card ids, which are also the contents list's anchors. */
export const VIEW_IDS = [
  'lessons',
  'training',
  'memory',
  'calc',
  'ring',
  'shards',
  'timeline',
  'samples',
  'compare',
  'log',
] as const satisfies readonly ExplainKey[];

export function section(parent: HTMLElement, id: ExplainKey): HTMLElement {
  const ex = explanation(id);
  const c = card(id, ex.title, ex.explanation, ex.links);
  parent.append(c.section);
  return c.body;
}

/**
 * Marks the contents bar's link of the view being read (the topmost card in the upper part of the
 * window) with aria-current="location", so the bar says where the reader is.
 */
export function trackContents(nav: HTMLElement): void {
  if (typeof IntersectionObserver !== 'function') return;
  const links = new Map<string, HTMLAnchorElement>();
  for (const a of nav.querySelectorAll<HTMLAnchorElement>('a[href^="#"]')) links.set(a.hash.slice(1), a);
  const seen = new Set<Element>();
  const observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (e.isIntersecting) seen.add(e.target);
        else seen.delete(e.target);
      }
      const top = [...seen].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
      for (const [id, a] of links) {
        if (top && id === top.id) a.setAttribute('aria-current', 'location');
        else a.removeAttribute('aria-current');
      }
    },
    { rootMargin: '-15% 0px -60% 0px' },
  );
  for (const id of links.keys()) {
    const el = document.getElementById(id);
    if (el && el.classList.contains('card')) observer.observe(el);
  }
}

/** The page: the skip link, the header, the contents bar, the settings column and the views column. */
export function layOut(
  root: HTMLElement,
  gpu: WebGpuInfo,
  software: boolean,
  nav: HTMLElement,
  parts: { settings: readonly HTMLElement[]; views: readonly HTMLElement[] },
): void {
  const w = t().page;
  document.documentElement.lang = lang() === 'zh' ? 'zh-CN' : 'en';
  document.title = w.title;
  const adapter = gpu.description || [gpu.vendor, gpu.architecture].filter(Boolean).join(' ') || w.anAdapter;
  root.replaceChildren(
    h('a', { class: 'skip', href: '#views' }, w.skip),
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'webddp'),
      h('p', {}, w.tagline),
      h('p', { class: 'adapter' }, w.adapter(adapter, software)),
      ...(gpu.halfArithmetic ? [h('p', { class: 'adapter' }, w.halfArithmetic(gpu.halfArithmetic))] : []),
      languageSwitch(),
    ),
    nav,
    h(
      'main',
      {},
      h('aside', { class: 'panel', id: 'settings', tabindex: -1, 'aria-label': w.settings }, ...parts.settings),
      h('div', { class: 'views-col' }, ...parts.views),
    ),
  );
}

/** The language switch: a link per language to this page with `?lang=`, each name in its own language. */
export function languageSwitch(): HTMLElement {
  const hrefOf = (l: string) => {
    const q = new URLSearchParams(location.search);
    q.set('lang', l);
    return `?${q.toString()}`;
  };
  const links = LANGS.map((l) => {
    const a = h(
      'a',
      {
        href: hrefOf(l),
        lang: l === 'zh' ? 'zh-CN' : 'en',
        hreflang: l === 'zh' ? 'zh-CN' : 'en',
        'aria-current': l === lang() ? 'true' : undefined,
      },
      messagesOf(l).langName,
    );
    // The address follows the settings, so the link is made when it is used: the switch keeps them.
    for (const ev of ['focus', 'mouseover', 'click'] as const) a.addEventListener(ev, () => (a.href = hrefOf(l)));
    return a;
  });
  return h('nav', { class: 'lang-switch', 'aria-label': t().page.language }, ...links);
}

/** The sticky list of views: links to every card (keyboard and screen readers get a nav landmark). */
export function contents(ids: readonly ExplainKey[]): HTMLElement {
  return h(
    'nav',
    { class: 'contents', 'aria-label': t().page.contents },
    h(
      'ul',
      {},
      h('li', { class: 'to-settings' }, h('a', { href: '#settings' }, t().page.settings)),
      ...ids.map((id) => h('li', {}, h('a', { href: `#${id}` }, t().page.nav[id]))),
    ),
  );
}
