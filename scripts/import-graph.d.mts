// Types of import-graph.mjs, for the unit tests that read the module graph.
export type ImportKind = 'static' | 'type' | 'lazy';
export interface Import {
  /** Absolute path of the imported file. */
  readonly target: string;
  readonly kind: ImportKind;
}
export const root: string;
export function tsFiles(dir: string): string[];
export function importsOf(file: string): Import[];
export function importGraph(dirs?: readonly string[]): Map<string, Import[]>;
export function loadedBy(entries: readonly string[]): Map<string, string[]>;
export function stronglyConnected<T>(nodes: Iterable<T>, next: (v: T) => Iterable<T>): T[][];
