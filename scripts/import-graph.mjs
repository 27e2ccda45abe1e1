// The source's import graph, read with the TypeScript compiler's parser (no type checking, so it
// takes a second): every relative import of a .ts file, with its kind. Shared by check-cycles.mjs,
// layering.mjs and the unit tests that guard the module graph (test/unit/module-graph.test.ts).
//   static  import ... from / export ... from / import './x.css' (loaded with the importer)
//   type    import type / export type (gone at run time, still a dependency of the design)
//   lazy    import('./x.ts'): loaded only when that line runs (how a mode's runner is loaded)
//   glob    import.meta.glob('../../shaders/*.wgsl'): every file the pattern matches, loaded with
//           the importer when eager, else lazily
// Imports of packages (no leading '.') are not edges. A query (`?raw`) is dropped from the target.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

export const root = resolve(import.meta.dirname, '..');

/** Every .ts file below `dir` (absolute paths, sorted). */
export function tsFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? tsFiles(p) : /\.ts$/.test(name) && !/\.d\.ts$/.test(name) ? [p] : [];
    });
}

function globFiles(from, pattern) {
  const abs = resolve(dirname(from), pattern);
  const dir = dirname(abs);
  const re = new RegExp(
    '^' +
      abs
        .slice(dir.length + 1)
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*') +
      '$',
  );
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => re.test(n))
        .map((n) => join(dir, n))
    : [];
}

// `import type` and `export type` only: under verbatimModuleSyntax, `import { type A } from './x.ts'`
// still loads ./x.ts at run time (it compiles to `import {} from './x.ts'`).
function isTypeOnly(node) {
  return ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
}

const parsed = new Map();

/** The relative imports of one file: [{ target (absolute path), kind }] (read once per process). */
export function importsOf(file) {
  if (!parsed.has(file)) parsed.set(file, readImports(file));
  return parsed.get(file);
}

function readImports(file) {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = [];
  const add = (spec, kind) => {
    if (!spec.startsWith('.')) return;
    out.push({ target: resolve(dirname(file), spec.replace(/\?.*$/, '')), kind });
  };
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier))
        add(node.moduleSpecifier.text, isTypeOnly(node) ? 'type' : 'static');
    } else if (ts.isImportTypeNode(node)) {
      const a = node.argument;
      if (ts.isLiteralTypeNode(a) && ts.isStringLiteral(a.literal)) add(a.literal.text, 'type');
    } else if (ts.isCallExpression(node)) {
      const [arg, opts] = node.arguments;
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword && arg !== undefined && ts.isStringLiteralLike(arg)) {
        add(arg.text, 'lazy');
      } else if (
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'glob' &&
        ts.isMetaProperty(node.expression.expression) &&
        arg !== undefined &&
        ts.isStringLiteralLike(arg)
      ) {
        const eager =
          opts !== undefined &&
          ts.isObjectLiteralExpression(opts) &&
          opts.properties.some(
            (p) =>
              ts.isPropertyAssignment(p) &&
              p.name.getText(sf) === 'eager' &&
              p.initializer.kind === ts.SyntaxKind.TrueKeyword,
          );
        for (const t of globFiles(file, arg.text)) out.push({ target: t, kind: eager ? 'static' : 'lazy' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The import graph of the .ts files below `dirs` (relative to the repository root): file -> imports. */
export function importGraph(dirs = ['src']) {
  const graph = new Map();
  for (const d of dirs) for (const f of tsFiles(join(root, d))) graph.set(f, importsOf(f));
  return graph;
}

/**
 * The files `entries` load when they are loaded: static imports (and eager globs), followed through
 * every .ts file reached; type-only and lazy (import()) edges are not followed. Returns each reached
 * file (absolute) with the chain of imports that reached it first.
 */
export function loadedBy(entries) {
  const via = new Map(entries.map((e) => [resolve(root, e), [relative(root, resolve(root, e))]]));
  const queue = [...via.keys()];
  while (queue.length > 0) {
    const f = queue.shift();
    if (!f.endsWith('.ts')) continue;
    for (const { target, kind } of importsOf(f)) {
      if (kind !== 'static' || via.has(target)) continue;
      via.set(target, [...via.get(f), relative(root, target)]);
      queue.push(target);
    }
  }
  return via;
}

/** Tarjan's strongly connected components of a graph given as node -> iterable of nodes. */
export function stronglyConnected(nodes, next) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const comps = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next(v)) {
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
      comps.push(comp);
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return comps;
}
