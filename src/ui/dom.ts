// Tiny DOM helpers for the teaching page: build elements with attributes and children, and the
// "card" every view lives in (a titled section with a short explanation and a documentation link).
import { t } from './i18n/index.ts';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined>;

/** Creates an element; attributes with value false/undefined are left out, true gives an empty attribute. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs))
    if (v !== undefined && v !== false) el.setAttribute(k, v === true ? '' : String(v));
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** A link to documentation, opening in a new tab. */
export function docLink(href: string, text: string): HTMLAnchorElement {
  return h('a', { href, target: '_blank', rel: 'noopener' }, text);
}

export interface CardParts {
  /** The section (append it to the page). */
  readonly section: HTMLElement;
  /** Where the view draws. */
  readonly body: HTMLElement;
}

/**
 * A titled section: heading, the view's body, and beside it a short explanation (paragraphs or
 * nodes) ending in links to the matching PyTorch / DeepSpeed documentation.
 */
export function card(
  id: string,
  title: string,
  explanation: readonly Child[],
  links: readonly HTMLAnchorElement[] = [],
): CardParts {
  const body = h('div', { class: 'card-body' });
  const explain = h('aside', { class: 'explain', 'aria-label': t().page.about(title) }, ...explanation);
  if (links.length > 0)
    explain.append(h('p', { class: 'links' }, t().page.docs, ...links.flatMap((a, i) => (i === 0 ? [a] : [' · ', a]))));
  const section = h(
    'section',
    { class: 'card', id, 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title),
    h('div', { class: 'card-content' }, body, explain),
  );
  return { section, body };
}

/** A paragraph with mixed text and inline nodes (code, links). */
export function p(...children: Child[]): HTMLParagraphElement {
  return h('p', {}, ...children);
}

/** Inline code. */
export function code(text: string): HTMLElement {
  return h('code', {}, text);
}
