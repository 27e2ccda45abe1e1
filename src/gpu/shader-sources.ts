// The WGSL source of every kernel, read from shaders/*.wgsl at build time (Vite's import.meta.glob;
// vitest and the CLI bundle go through Vite too, so the browser, Node and tests run the same text).
import type { KernelName } from './kernels.ts';
import { functionSpan } from './wgsl-rewrite.ts';

const sources = import.meta.glob<string>('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true });

/**
 * Functions a kernel takes from another kernel's file instead of repeating them (WGSL has no
 * include): appended to its source, so that both round by one definition.
 */
const BORROWED: Partial<Record<KernelName, readonly (readonly [KernelName, string])[]>> = {
  f16_round_trip: [['cast_f32_to_f16', 'half_bits']],
};

/** Kernel `name`'s WGSL as its file has it, with the functions it borrows appended. */
export function shaderSource(name: KernelName): string {
  const own = fileSource(name);
  const borrowed = (BORROWED[name] ?? []).map(([from, fn]) => functionSource(from, fn));
  return borrowed.length === 0 ? own : `${own}\n${borrowed.join('\n')}\n`;
}

function fileSource(name: KernelName): string {
  const src = sources[`../../shaders/${name}.wgsl`];
  if (src === undefined) throw new Error(`shaders/${name}.wgsl is missing from the build`);
  return src;
}

/** `fn <fnName>(...) { ... }` as shaders/<name>.wgsl defines it. */
export function functionSource(name: KernelName, fnName: string): string {
  const code = fileSource(name);
  const span = functionSpan(code, fnName);
  if (!span) throw new Error(`shaders/${name}.wgsl has no fn ${fnName}`);
  return code.slice(span[0], span[1]);
}

/** Every .wgsl file in shaders/, by file stem (tests check each one is registered). */
export function shaderFiles(): string[] {
  return Object.keys(sources).map((p) => p.replace(/^.*\//, '').replace(/\.wgsl$/, ''));
}
