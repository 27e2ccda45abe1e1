// Bandwidth metrics with nccl-tests' definitions (github.com/NVIDIA/nccl-tests, doc/PERFORMANCE.md):
// algbw = S / t, with S the
// whole buffer's bytes, and busbw = algbw x the bus factor, which makes numbers comparable across
// world sizes: 2(W-1)/W for all-reduce (each element crosses 2(W-1) links in W-sized pieces),
// (W-1)/W for reduce-scatter and all-gather, 1 for broadcast. Units: GB/s = 1e9 bytes/s.

/** Collectives with a bus factor. */
export type BandwidthOp = 'allReduce' | 'reduceScatter' | 'allGather' | 'broadcast';

/** One measurement. */
export interface Bandwidth {
  readonly op: BandwidthOp;
  readonly world: number;
  readonly bytes: number;
  readonly seconds: number;
  /** bytes / seconds / 1e9 */
  readonly algbwGBs: number;
  /** algbw x busFactor(op, world) */
  readonly busbwGBs: number;
}

/** nccl-tests' bus factor. */
export function busFactor(op: BandwidthOp, world: number): number {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer >= 1, got ${world}`);
  switch (op) {
    case 'allReduce':
      return (2 * (world - 1)) / world;
    case 'reduceScatter':
    case 'allGather':
      return (world - 1) / world;
    case 'broadcast':
      return 1;
  }
}

/** algbw and busbw of moving `bytes` (the whole buffer) in `seconds` over `world` ranks. */
export function bandwidth(op: BandwidthOp, bytes: number, seconds: number, world: number): Bandwidth {
  if (!(seconds > 0)) throw new RangeError(`seconds must be > 0, got ${seconds}`);
  const algbwGBs = bytes / seconds / 1e9;
  return { op, world, bytes, seconds, algbwGBs, busbwGBs: algbwGBs * busFactor(op, world) };
}

function fmtBytes(b: number): string {
  if (b >= 1e9) return `${(b / 1e9).toFixed(2)} GB`;
  if (b >= 1e6) return `${(b / 1e6).toFixed(2)} MB`;
  if (b >= 1e3) return `${(b / 1e3).toFixed(2)} kB`;
  return `${b} B`;
}

/** One readable line, e.g. `allReduce W=4  2.18 MB  1.234 ms  algbw 1.77 GB/s  busbw 2.65 GB/s`. */
export function formatBandwidth(m: Bandwidth): string {
  return `${m.op} W=${m.world}  ${fmtBytes(m.bytes)}  ${(m.seconds * 1e3).toFixed(3)} ms  algbw ${m.algbwGBs.toFixed(2)} GB/s  busbw ${m.busbwGBs.toFixed(2)} GB/s`;
}
