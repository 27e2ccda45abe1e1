#!/usr/bin/env node
// The layering of src/ as the code has it: every arrow from one concept to another (a concept is a
// folder under src/, or a file directly in src/, as in check-cycles.mjs) with the number of file
// pairs behind it (type-only and lazy imports included). Concepts are listed top down: a concept
// comes before every concept it imports (the check-cycles check keeps that order possible).
//   node scripts/layering.mjs           prints the arrows
//   node scripts/layering.mjs --write   rewrites the ```layering block of docs/architecture.md
// test/unit/layering.test.ts fails when that block and the code differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { importGraph, root } from './import-graph.mjs';

export const DOC = join(root, 'docs', 'architecture.md');
const FENCE = /```layering\n[\s\S]*?```/;

function concept(file) {
  const [first, ...rest] = relative(join(root, 'src'), file).split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

/** concept -> (concept -> file pairs), from the source. */
export function arrows() {
  const graph = importGraph(['src']);
  const pairs = new Map();
  for (const [file, imports] of graph) {
    const a = concept(file);
    for (const t of new Set(imports.map((i) => i.target).filter((t) => graph.has(t)))) {
      const b = concept(t);
      if (a === b) continue;
      if (!pairs.has(a)) pairs.set(a, new Map());
      pairs.get(a).set(b, (pairs.get(a).get(b) ?? 0) + 1);
    }
  }
  return pairs;
}

/** Each concept's depth: 0 for one nothing imports; below every concept that imports it. */
function depths(pairs) {
  const all = new Set([...pairs.keys(), ...[...pairs.values()].flatMap((m) => [...m.keys()])]);
  const depth = new Map([...all].map((c) => [c, 0]));
  for (let changed = true, rounds = 0; changed && rounds <= all.size; rounds++) {
    changed = false;
    for (const [a, targets] of pairs)
      for (const b of targets.keys())
        if (depth.get(b) <= depth.get(a)) {
          depth.set(b, depth.get(a) + 1);
          changed = true;
        }
  }
  return depth;
}

/** The block's lines: `a -> b (n), c (m)` per importing concept, top down, then the leaves. */
export function render(pairs) {
  const depth = depths(pairs);
  const order = [...depth.keys()].sort((x, y) => depth.get(x) - depth.get(y) || x.localeCompare(y));
  const lines = order.map((a) => {
    const targets = [...(pairs.get(a) ?? new Map())].sort(
      ([x], [y]) => depth.get(x) - depth.get(y) || x.localeCompare(y),
    );
    return targets.length === 0 ? `${a} -> (nothing)` : `${a} -> ${targets.map(([b, n]) => `${b} (${n})`).join(', ')}`;
  });
  return lines.join('\n');
}

/** The arrows a block draws: concept -> (concept -> file pairs). */
export function parse(block) {
  const pairs = new Map();
  for (const line of block.split('\n')) {
    const m = /^(\S+) -> (.*)$/.exec(line.trim());
    if (!m) continue;
    const targets = new Map();
    if (m[2] !== '(nothing)')
      for (const t of m[2].split(', ')) {
        const n = /^(\S+) \((\d+)\)$/.exec(t);
        if (n) targets.set(n[1], Number(n[2]));
      }
    if (targets.size > 0) pairs.set(m[1], targets);
  }
  return pairs;
}

/** The block as docs/architecture.md has it (its lines between the fences). */
export function documented(text = readFileSync(DOC, 'utf8')) {
  const m = FENCE.exec(text);
  if (!m) throw new Error(`${relative(root, DOC)} has no \`\`\`layering block`);
  return m[0].replace(/^```layering\n/, '').replace(/```$/, '');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = render(arrows());
  if (process.argv.includes('--write')) {
    const doc = readFileSync(DOC, 'utf8');
    documented(doc);
    writeFileSync(
      DOC,
      doc.replace(FENCE, () => '```layering\n' + text + '\n```'),
    );
    console.log(`layering: ${relative(root, DOC)} updated`);
  } else console.log(text);
}
