// Rank 0's log, in the style of the DDP tutorial's `if rank == 0: print(...)`: a line every few
// batches and one per epoch, plus the device each rank got. Kept to the last 400 lines.
import type { TrainEvent } from '../../runtime/events.ts';
import { h } from '../dom.ts';
import { pct, rate } from '../format.ts';
import { MODE_SHORT } from '../controls/config-fields.ts';
import type { View } from './view.ts';

const MAX_LINES = 400;

/** Log every k-th batch: about 10 lines an epoch, every 50 batches for long epochs, as the tutorial does. */
export function logEvery(steps: number): number {
  return steps >= 500 ? 50 : Math.max(1, Math.round(steps / 10));
}

export class LogView implements View {
  private readonly pre: HTMLPreElement;
  private lines: string[] = [];
  private pending: string[] = [];
  private every = 10;

  constructor(body: HTMLElement) {
    this.pre = h('pre', { class: 'log', tabindex: 0, 'aria-label': 'rank 0 log' });
    body.append(this.pre);
  }

  handle(e: TrainEvent): void {
    switch (e.type) {
      case 'start':
        this.pending.push(
          `${MODE_SHORT[e.config.mode]} on ${e.config.workers} worker(s), batch ${e.config.batchSize}/worker, ${e.config.optimizer} lr ${e.config.lr}`,
        );
        for (const r of e.ranks)
          this.pending.push(
            `rank ${r.rank}: ${r.adapter.description || r.adapter.architecture || r.adapter.vendor || 'WebGPU adapter'}${r.adapter.fallback ? ' (software)' : ''}, ${r.params.toLocaleString('en')} parameters`,
          );
        break;
      case 'epoch-start':
        this.every = logEvery(e.steps);
        break;
      case 'step':
        if ((e.step + 1) % this.every === 0 || e.step === e.steps - 1) {
          this.pending.push(`Epoch ${e.epoch} | Batch ${e.step + 1}/${e.steps} | Loss: ${e.loss.toFixed(4)}`);
        }
        break;
      case 'epoch':
        this.pending.push(
          `Epoch ${e.epoch} done | train loss ${e.trainLoss.toFixed(4)} | train acc ${pct(e.trainAccuracy)} | test loss ${e.testLoss.toFixed(4)} | test acc ${pct(e.testAccuracy)} (${e.testSamples} images) | ${rate(e.imagesPerSec)} images/s | ${e.seconds.toFixed(1)} s`,
        );
        break;
      case 'check':
        this.pending.push(
          `check at batch ${e.step + 1}: ${e.identical ? 'all replicas hold identical parameters' : 'REPLICAS DIFFER'}`,
        );
        break;
      case 'done':
        this.pending.push(e.stopped ? 'stopped' : 'done');
        break;
    }
  }

  /** Adds a line of its own (errors, state changes). */
  note(line: string): void {
    this.pending.push(line);
  }

  render(): boolean {
    if (this.pending.length === 0) return false;
    const atBottom = this.pre.scrollTop + this.pre.clientHeight >= this.pre.scrollHeight - 4;
    this.lines.push(...this.pending);
    this.pending = [];
    if (this.lines.length > MAX_LINES) this.lines = this.lines.slice(-MAX_LINES);
    this.pre.textContent = this.lines.join('\n');
    if (atBottom) this.pre.scrollTop = this.pre.scrollHeight;
    return false;
  }

  reset(): void {
    this.lines = [];
    this.pending = [];
  }

  get text(): readonly string[] {
    return this.lines;
  }
}
