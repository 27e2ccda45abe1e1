// The WGSL source of every kernel, read from shaders/*.wgsl at build time (Vite's import.meta.glob;
// vitest and the CLI bundle go through Vite too, so the browser, Node and tests run the same text).
import type { KernelName } from './kernels.ts';

const sources = import.meta.glob<string>('../../shaders/*.wgsl', { query: '?raw', import: 'default', eager: true });

export function shaderSource(name: KernelName): string {
  const src = sources[`../../shaders/${name}.wgsl`];
  if (src === undefined) throw new Error(`shaders/${name}.wgsl is missing from the build`);
  return src;
}

/** Every .wgsl file in shaders/, by file stem (tests check each one is registered). */
export function shaderFiles(): string[] {
  return Object.keys(sources).map((p) => p.replace(/^.*\//, '').replace(/\.wgsl$/, ''));
}
