// Shared by the communication tests: rings of real links in one thread, deterministic inputs,
// and the float32 reference sums (Baidu order and float64).
import { createPortLink, createRingPorts, createSharedLink, chunkRange } from '../../src/comm/index.ts';
import type { Link, PortLinkOptions, Transport } from '../../src/comm/index.ts';

/** W MessagePort links wired into a ring (all in this thread). */
export function portRing(world: number, opts: Omit<PortLinkOptions, 'rank' | 'world'> = {}): Link[] {
  return createRingPorts(world, 'message').map((ports, rank) => createPortLink({ ...opts, rank, world }, ports));
}

/** W shared-memory links wired into a ring (all in this thread), each direction a ring of `ringBytes`. */
export function sharedRing(
  world: number,
  opts: Omit<PortLinkOptions, 'rank' | 'world'> = {},
  ringBytes?: number,
): Link[] {
  return createRingPorts(world, 'shared', ringBytes).map((ports, rank) =>
    createSharedLink({ ...opts, rank, world }, ports),
  );
}

/** Both transports, by name: the collective tests run on each and expect the same bits. */
export const RINGS: Record<Transport, typeof portRing> = { message: portRing, shared: sharedRing };

/** Runs `fn` on every rank concurrently; resolves with each rank's settled outcome. */
export async function onAllRanks<T>(
  links: Link[],
  fn: (link: Link, rank: number) => Promise<T>,
): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(links.map((l, r) => fn(l, r)));
}

/** The values of fulfilled outcomes; throws the first rejection. */
export function values<T>(outcomes: PromiseSettledResult<T>[]): T[] {
  return outcomes.map((o) => {
    if (o.status === 'rejected') throw o.reason;
    return o.value;
  });
}

export function closeAll(links: Link[]): void {
  for (const l of links) l.close();
}

/** mulberry32: a tiny deterministic PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random float32 values of mixed magnitudes, so that the order of float32 additions matters. */
export function randomFloats(n: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (r() - 0.5) * 2 ** Math.floor(r() * 20 - 10);
  return out;
}

/** nccl-tests-style exact input: small integers, so any summation order gives the exact sum. */
export function integerInput(n: number, rank: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = ((rank + 1) * (i % 97)) % 1021;
  return out;
}

/**
 * The all-reduce result in the ring's float32 order: element i of chunk c is
 * ((x_c + x_{c+1}) + x_{c+2}) + ... with indices mod W. `first` = 1 gives the order of the
 * torch-ownership reduce-scatter, which starts chunk c at rank c+1.
 */
export function baiduOrderSum(inputs: Float32Array[], first = 0): Float32Array {
  const world = inputs.length;
  const n = inputs[0]?.length ?? 0;
  const out = new Float32Array(n);
  for (let c = 0; c < world; c++) {
    const { start, end } = chunkRange(c, n, world);
    for (let i = start; i < end; i++) {
      let s = inputs[(c + first) % world]?.[i] ?? NaN;
      for (let k = 1; k < world; k++) s = Math.fround(s + (inputs[(c + first + k) % world]?.[i] ?? NaN));
      out[i] = s;
    }
  }
  return out;
}

/** Float64 element-wise sum. */
export function float64Sum(inputs: Float32Array[]): Float64Array {
  const n = inputs[0]?.length ?? 0;
  const out = new Float64Array(n);
  for (const x of inputs) for (let i = 0; i < n; i++) out[i] = (out[i] ?? 0) + (x[i] ?? 0);
  return out;
}

/** Index of the first element whose bits differ, or -1. */
export function firstBitDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return i;
  return -1;
}
