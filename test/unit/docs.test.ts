// The README is the front door: short, every relative link it and the reference in docs/ make
// points at a file (and an anchor at a heading) of this repository, and no internal wording
// (issue numbers, "this stop", "the seed's") reaches a reader. The library snippet itself runs
// verbatim in an installed package (test/package/pack.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('README and docs/', () => {
  it('the README is a front door: at most 250 lines', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });

  it.each(DOCS)('%s: every relative link resolves, anchors included', (file) => {
    const text = readFileSync(file, 'utf8');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!target || /^[a-z]+:/.test(target)) continue; // http(s), mailto
      const [path = '', hash] = target.split('#');
      const resolved = path === '' ? file : join(dirname(file), path);
      if (!existsSync(resolved)) {
        broken.push(target);
        continue;
      }
      if (hash && resolved.endsWith('.md')) {
        const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1] ?? ''));
        if (!headings.includes(hash)) broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s: no internal wording', (file) => {
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/\bissue \d+|this stop\b|the seed['’]s/i);
  });
});
