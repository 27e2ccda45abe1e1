#!/usr/bin/env node
// Import-cycle check (part of `npm test`), at two levels, over every import between two files under
// src/ (scripts/import-graph.mjs; type-only and lazy import() count too: a type is a dependency of
// the design even when it vanishes at run time):
//   files     no two files import each other, directly or through others;
//   concepts  the concepts form a DAG: a concept is the folder under src/ (src/parallel/ddp/runner.ts
//             -> parallel) or, for a file directly in src/, the file itself (src/config.ts -> config).
// Fails, printing one import of each edge of every cycle found.
import { relative, join } from 'node:path';
import { importGraph, root, stronglyConnected } from './import-graph.mjs';

const src = join(root, 'src');
const graph = importGraph(['src']);
const name = (f) => relative(root, f);

function concept(file) {
  const [first, ...rest] = relative(src, file).split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

/** file -> files it imports under src/ */
const fileEdges = new Map(
  [...graph].map(([f, imports]) => [f, [...new Set(imports.map((i) => i.target).filter((t) => graph.has(t)))]]),
);
/** concept -> concept -> one example "file imports file" */
const conceptEdges = new Map();
for (const [f, targets] of fileEdges)
  for (const t of targets) {
    const [a, b] = [concept(f), concept(t)];
    if (a === b) continue;
    if (!conceptEdges.has(a)) conceptEdges.set(a, new Map());
    if (!conceptEdges.get(a).has(b)) conceptEdges.get(a).set(b, `${name(f)} imports ${name(t)}`);
  }

let failed = false;
const fileCycles = stronglyConnected(fileEdges.keys(), (f) => fileEdges.get(f) ?? []).filter((c) => c.length > 1);
for (const comp of fileCycles) {
  failed = true;
  console.error(`check-cycles: files importing each other (${comp.length}):`);
  for (const f of comp.sort())
    for (const t of fileEdges.get(f)) if (comp.includes(t)) console.error(`  ${name(f)} imports ${name(t)}`);
}
const concepts = new Set([...conceptEdges.keys(), ...[...conceptEdges.values()].flatMap((m) => [...m.keys()])]);
const conceptCycles = stronglyConnected(concepts, (c) => conceptEdges.get(c)?.keys() ?? []).filter((c) => c.length > 1);
for (const comp of conceptCycles) {
  failed = true;
  console.error(`check-cycles: import cycle between ${comp.sort().join(', ')}:`);
  for (const a of comp)
    for (const [b, why] of conceptEdges.get(a) ?? []) if (comp.includes(b)) console.error(`  ${why}`);
}
if (failed) process.exit(1);
console.log(`check-cycles: ${fileEdges.size} files and ${concepts.size} concepts under src/, no import cycle`);
