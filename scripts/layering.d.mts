// Types of layering.mjs, for test/unit/layering.test.ts.
export const DOC: string;
/** concept -> (concept -> file pairs) */
export type Arrows = Map<string, Map<string, number>>;
export function arrows(): Arrows;
export function render(pairs: Arrows): string;
export function parse(block: string): Arrows;
export function documented(text?: string): string;
