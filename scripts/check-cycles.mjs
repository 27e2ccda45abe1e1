#!/usr/bin/env node
// Folder-level import-cycle check (part of `npm test`): every import between two source files is
// an edge between their concepts, the folder under src/ (src/parallel/ddp/runner.ts -> parallel) or,
// for a file directly in src/, the file itself (src/config.ts -> config). Type-only imports count
// too: a type is a dependency of the design even when it vanishes at run time. Fails, printing one
// file-level import of each edge of a cycle, when the concepts do not form a DAG.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.ts$/.test(name) ? [p] : [];
  });
}

function concept(file) {
  const [first, ...rest] = relative(src, file).split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

/** edges: concept -> concept -> one example "file imports file" */
const edges = new Map();
const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
for (const file of files(src)) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(importRe)) {
    const target = resolve(dirname(file), m[1] ?? m[2]);
    if (!target.startsWith(src + '/')) continue;
    const [a, b] = [concept(file), concept(target)];
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    if (!edges.get(a).has(b)) edges.get(a).set(b, `${relative(root, file)} imports ${relative(root, target)}`);
  }
}

// Tarjan's strongly connected components: any component of more than one concept is a cycle.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const on = new Set();
const cycles = [];
function visit(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  on.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const comp = [];
    let w;
    do {
      w = stack.pop();
      on.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1) cycles.push(comp);
  }
}
const concepts = new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])]);
for (const c of concepts) if (!idx.has(c)) visit(c);

if (cycles.length === 0) {
  console.log(`check-cycles: ${concepts.size} concepts under src/, no folder-level import cycle`);
} else {
  for (const comp of cycles) {
    console.error(`check-cycles: import cycle between ${comp.sort().join(', ')}:`);
    for (const a of comp) for (const [b, why] of edges.get(a) ?? []) if (comp.includes(b)) console.error(`  ${why}`);
  }
  process.exit(1);
}
