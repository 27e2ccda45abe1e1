// Watching what a rejected import leaves behind (Node, Linux): the file descriptors the process
// holds on files under a directory (/proc/self/fd, read per path so other test files running in
// parallel threads of the same process do not count), a byte-exact snapshot of a directory tree,
// and the peak heap + ArrayBuffer growth of this thread while a promise runs.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Open descriptors of this process on paths under `dir` (their targets). */
export function fdsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed while we looked (e.g. the readdir's own descriptor)
    }
    if (target.startsWith(`${dir}/`) || target === dir) out.push(`${fd} -> ${target}`);
  }
  return out;
}

/** Every file under `dir` with the SHA-256 of its bytes (sorted by path). */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length + 1)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Runs `fn` and reports the largest growth of heap + ArrayBuffer bytes seen while it ran (sampled every 2 ms). */
export async function peakGrowth<T>(fn: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; peak: number }> {
  const base = used();
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, used() - base);
  }, 2);
  try {
    const [result] = await Promise.allSettled([fn()]);
    peak = Math.max(peak, used() - base);
    return { result: result as PromiseSettledResult<T>, peak };
  } finally {
    clearInterval(timer);
  }
}
