// Gathers the spans the step events carry (index = rank) over a run, for the trace file
// (`webddp train --trace`) and the page's timeline view and download.
import { chromeTrace, type ChromeTrace } from './chrome.ts';
import type { Span } from './tracer.ts';

export class TraceCollector {
  private readonly ranks: Span[][] = [];

  /** Adds one step event's spans (`spans[r]`: rank r's). */
  add(spans: readonly (readonly Span[])[] | undefined): void {
    spans?.forEach((list, r) => {
      const mine = (this.ranks[r] ??= []);
      for (const s of list) mine.push(s);
    });
  }

  /** Rank r's spans so far. */
  spans(rank: number): readonly Span[] {
    return this.ranks[rank] ?? [];
  }

  get world(): number {
    return this.ranks.length;
  }

  get empty(): boolean {
    return this.ranks.every((r) => r.length === 0);
  }

  clear(): void {
    this.ranks.length = 0;
  }

  /** The Chrome trace of everything collected. */
  trace(about: Record<string, string | number> = {}): ChromeTrace {
    return chromeTrace(this.ranks, about);
  }
}
