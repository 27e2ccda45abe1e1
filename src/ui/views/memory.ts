// Memory per worker, measured: every GPU buffer a worker creates is counted by category
// (src/gpu/memory.ts), and each step reports the counts, like torch.cuda.memory_allocated() and
// max_memory_allocated() on every device. Bars share one scale, so DataParallel's heavy device 0
// stands out against DDP's even workers.
import type { Mode } from '../../config.ts';
import { PARALLEL_MODES } from '../../parallel/index.ts';
import type { WorkerStat, TrainEvent } from '../../runtime/events.ts';
import type { MemorySnapshot } from '../../gpu/memory.ts';
import { h } from '../dom.ts';
import { categoryLegend, memoryBar, memoryTable, type BarRow } from './memory-bar.ts';
import type { View } from './view.ts';
import { t } from '../i18n/index.ts';

/** What each worker does in a mode (shown under its name). */
export function workerRole(mode: Mode, rank: number): string {
  const m = PARALLEL_MODES[mode];
  const w = t().memory;
  if (m.topology === 'star') return rank === 0 ? w.starRoot : w.starReplica;
  const parts = (['optimizer', 'gradients', 'parameters'] as const)
    .filter((k) => m.partitioned[k])
    .map((k) => w.parts[k]);
  return parts.length > 0 ? w.partitioned(parts.join(w.and)) : w.fullReplica;
}

export class MemoryView implements View {
  private readonly rowsEl = h('div', { class: 'mem-rows' });
  private readonly details = h('details', { class: 'mem-details' }, h('summary', {}, t().memory.numbers));
  private readonly root: HTMLElement;
  private rows: BarRow[] = [];
  private snapshots: MemorySnapshot[] = [];
  private mode: Mode = 'ddp';
  private scale = 0;
  private dirty = false;

  constructor(body: HTMLElement) {
    this.root = h('div', { class: 'memory' }, categoryLegend(), this.rowsEl, this.details);
    body.append(this.root);
    this.details.addEventListener('toggle', () => this.fillTable());
    this.rowsEl.append(h('p', { class: 'empty' }, t().memory.empty));
  }

  handle(e: TrainEvent): void {
    if (e.type === 'start') {
      this.mode = e.config.mode;
      this.take(
        e.ranks.map((r) => r.memory),
        true,
      );
    } else if (e.type === 'step' || e.type === 'epoch')
      this.take(
        e.workers.map((w: WorkerStat) => w.memory),
        false,
      );
  }

  /** The latest snapshot of every worker (the page exposes it for tests and the console). */
  get latest(): readonly MemorySnapshot[] {
    return this.snapshots;
  }

  render(): boolean {
    if (!this.dirty) return false;
    this.dirty = false;
    if (this.rows.length !== this.snapshots.length) {
      this.rows = this.snapshots.map((_, r) => memoryBar(t().memory.worker(r), workerRole(this.mode, r)));
      this.rowsEl.replaceChildren(...this.rows.map((r) => r.element));
    }
    this.snapshots.forEach((s, r) => this.rows[r]?.update(s, this.scale));
    this.rowsEl.dataset.mode = this.mode;
    this.fillTable();
    return false;
  }

  /** The numbers behind the bars, built only while the table is open (it is not needed otherwise). */
  private fillTable(): void {
    if (!this.details.open) return;
    const rows = this.snapshots.map((s, r) => ({ name: t().memory.worker(r), s }));
    this.details.replaceChildren(this.details.firstChild ?? '', memoryTable(t().memory.tableCaption, rows));
  }

  reset(): void {
    this.snapshots = [];
    this.scale = 0;
    this.rows = [];
    this.dirty = true;
  }

  private take(snaps: MemorySnapshot[], fresh: boolean): void {
    if (fresh) this.scale = 0;
    this.snapshots = snaps;
    this.scale = Math.max(this.scale, ...snaps.map((s) => s.peak));
    this.dirty = true;
  }
}
