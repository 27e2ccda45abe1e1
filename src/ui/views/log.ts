// Rank 0's log, in the style of the DDP tutorial's `if rank == 0: print(...)`: a line every few
// batches and one per epoch, plus the device each rank got. Kept to the last 400 lines.
import type { TrainEvent } from '../../runtime/events.ts';
import { h } from '../dom.ts';
import { pct, rate } from '../format.ts';
import { MODE_SHORT } from '../controls/config-fields.ts';
import type { View } from './view.ts';
import { t } from '../i18n/index.ts';
import { describeSchedule } from '../../schedule/index.ts';

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
  private scheduled = false;

  constructor(body: HTMLElement) {
    this.pre = h('pre', { class: 'log', role: 'log', tabindex: 0, 'aria-label': t().log.label });
    body.append(this.pre);
  }

  handle(e: TrainEvent): void {
    switch (e.type) {
      case 'start': {
        const c = e.config;
        this.scheduled = c.schedule !== 'none';
        const extra = [
          c.schedule !== 'none' ? describeSchedule(c.schedule) : '',
          c.gradAccum > 1 ? `gradAccum ${c.gradAccum}` : '',
          c.clipGradNorm > 0 ? `clip ${c.clipGradNorm}` : '',
          c.fp16 ? 'fp16' : c.bf16 ? 'bf16' : '',
        ].filter(Boolean);
        this.pending.push(
          t().log.start(
            MODE_SHORT[c.mode],
            c.workers,
            c.batchSize,
            c.optimizer,
            c.lr,
            extra.length > 0 ? `, ${extra.join(', ')}` : '',
          ),
        );
        for (const r of e.ranks)
          this.pending.push(
            t().log.rank(
              r.rank,
              r.adapter.description || r.adapter.architecture || r.adapter.vendor || t().log.adapter,
              r.adapter.fallback,
              r.params,
            ),
          );
        if (e.ranks.length > 1) this.pending.push(t().log.transport(e.ranks.every((r) => r.transport === 'shared')));
        break;
      }
      case 'epoch-start':
        this.every = logEvery(e.steps);
        break;
      case 'step':
        // DeepSpeed's own lines (overflow, skipped step, new scale), word for word, whenever they come.
        if (e.fp16) this.pending.push(...e.fp16.messages);
        if ((e.step + 1) % this.every === 0 || e.step === e.steps - 1) {
          this.pending.push(
            t().log.step(e.epoch, e.step + 1, e.steps, e.loss.toFixed(4), this.scheduled ? e.lr.toPrecision(4) : '') +
              (e.fp16 ? t().log.lossScale(e.fp16.lossScale) : ''),
          );
        }
        break;
      case 'epoch':
        this.pending.push(
          t().log.epoch(
            e.epoch,
            e.trainLoss.toFixed(4),
            pct(e.trainAccuracy),
            e.testLoss.toFixed(4),
            pct(e.testAccuracy),
            e.testSamples,
            rate(e.imagesPerSec),
            e.seconds.toFixed(1),
          ),
        );
        break;
      case 'check':
        this.pending.push(t().log.check(e.step + 1, e.identical));
        break;
      case 'checkpoint':
        this.pending.push(t().log.checkpoint(e.globalStep, e.epoch, e.step, e.stepsPerEpoch, e.where));
        break;
      case 'restart':
        this.pending.push(t().log.restart(e.rank, e.kind, e.attempt, e.maxRestarts, e.fromStep, e.message));
        break;
      case 'done':
        this.pending.push(e.stopped ? t().log.stopped : t().log.done);
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
