// An accessibility check for the browser tests: axe-core (the engine of Lighthouse's and the axe
// browser extension's audits) run inside the page; returns its serious and critical violations,
// each with the rule, what it means and the elements it found, so a failing test says what to fix.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'puppeteer';

const require = createRequire(import.meta.url);
let source: string | undefined;

export interface Violation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: readonly string[];
}

/** Runs axe on the whole page (WCAG 2.0/2.1 A and AA rules and best practices). */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: source });
  return page.evaluate(async () => {
    interface AxeResult {
      violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<AxeResult> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')),
      }));
  });
}
