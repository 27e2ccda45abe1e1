// Per-device memory accounting: every GPUBuffer the engine creates goes through here, by category,
// so that memoryAllocated()/maxMemoryAllocated() mean what torch.cuda.memory_allocated() and
// torch.cuda.max_memory_allocated() mean (WebGPU itself has no memory query).
import { MEMORY_CATEGORIES, type MemoryCategory } from '../memory-categories.ts';

export interface CategoryStats {
  allocated: number;
  peak: number;
}
/** What a step log carries per worker; plain data, safe to post between threads. */
export interface MemorySnapshot {
  allocated: number;
  peak: number;
  buffers: number;
  /** Buffers created so far, destroyed or not (a step that allocates shows up as a rise). */
  created?: number;
  byCategory: Record<MemoryCategory, CategoryStats>;
}

export interface TrackedBufferDescriptor extends GPUBufferDescriptor {
  label: string;
  category: MemoryCategory;
}

interface Entry {
  size: number;
  category: MemoryCategory;
  label: string;
}

export class MemoryTracker {
  private readonly live = new Map<GPUBuffer, Entry>();
  private allocated = 0;
  private peak = 0;
  private created = 0;
  private readonly cat = new Map<MemoryCategory, CategoryStats>(
    MEMORY_CATEGORIES.map((c) => [c, { allocated: 0, peak: 0 }]),
  );

  /** Creates a buffer and counts its bytes under `category` until destroy(). */
  createBuffer(device: GPUDevice, desc: TrackedBufferDescriptor): GPUBuffer {
    const { category, ...rest } = desc;
    const buffer = device.createBuffer(rest);
    this.add(buffer, { size: buffer.size, category, label: desc.label });
    return buffer;
  }

  /** Destroys a buffer created by createBuffer and stops counting it. Destroying twice is harmless. */
  destroy(buffer: GPUBuffer): void {
    const e = this.live.get(buffer);
    if (e) {
      this.live.delete(buffer);
      this.allocated -= e.size;
      this.stats(e.category).allocated -= e.size;
    }
    buffer.destroy();
  }

  /** Destroys every live buffer (device teardown). */
  destroyAll(): void {
    for (const b of [...this.live.keys()]) this.destroy(b);
  }

  /** Bytes in live buffers now, like torch.cuda.memory_allocated(). */
  memoryAllocated(category?: MemoryCategory): number {
    return category ? this.stats(category).allocated : this.allocated;
  }

  /** Bytes now and at the peak, overall and per category (peak: like torch.cuda.max_memory_allocated()). */
  snapshot(): MemorySnapshot {
    const byCategory = Object.fromEntries(MEMORY_CATEGORIES.map((c) => [c, { ...this.stats(c) }])) as Record<
      MemoryCategory,
      CategoryStats
    >;
    return { allocated: this.allocated, peak: this.peak, buffers: this.live.size, created: this.created, byCategory };
  }

  /** A readable table, in the spirit of torch.cuda.memory_summary(). */
  summary(title = 'memory'): string {
    return formatMemoryTable(title, this.snapshot());
  }

  private add(buffer: GPUBuffer, e: Entry): void {
    this.live.set(buffer, e);
    this.created++;
    this.allocated += e.size;
    this.peak = Math.max(this.peak, this.allocated);
    const s = this.stats(e.category);
    s.allocated += e.size;
    s.peak = Math.max(s.peak, s.allocated);
  }

  private stats(c: MemoryCategory): CategoryStats {
    const s = this.cat.get(c);
    if (!s) throw new Error(`unknown memory category '${c}'`);
    return s;
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(2)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function formatMemoryTable(title: string, s: MemorySnapshot): string {
  const rows = MEMORY_CATEGORIES.map((c) => [
    c,
    formatBytes(s.byCategory[c].allocated),
    formatBytes(s.byCategory[c].peak),
  ]);
  rows.push(['total', formatBytes(s.allocated), formatBytes(s.peak)]);
  const w = [14, 12, 12];
  const line = (r: string[]) => r.map((x, i) => (i === 0 ? x.padEnd(w[i] ?? 0) : x.padStart(w[i] ?? 0))).join(' ');
  return [`${title} (${s.buffers} buffers)`, line(['category', 'allocated', 'peak']), ...rows.map(line)].join('\n');
}
