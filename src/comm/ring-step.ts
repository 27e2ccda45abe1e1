// Running ring steps over a link: one step sends one chunk to `next` and receives one chunk from
// `prev` (adding it in, or copying it), cut into slices of at most `sliceElems` elements that are
// all in flight together (the receiver's mailbox holds them). Also the guard every
// collective runs under: any error on a rank aborts the whole group, so no rank goes on with
// half-reduced data.
import { CollectiveMismatchError } from './errors.ts';
import { DEFAULT_SLICE_ELEMS, nowMs } from './link.ts';
import type { Fingerprint, Link } from './link.ts';
import { addHalves } from '../numeric/f16.ts';
import { addBf16 } from '../numeric/bf16.ts';
import { chunkRange, sliceRanges } from './ring-schedule.ts';
import type { RingStep } from './ring-schedule.ts';

/** Options every collective takes. */
export interface CollectiveOptions {
  /**
   * Largest message in float32 elements (default 256 Ki = 1 MiB, capped at the link's maximum).
   * Every rank must use the same value: the receiver checks slice lengths.
   */
  readonly sliceElems?: number;
}

/** The slice size to use on `link`. */
export function sliceElemsFor(link: Link, opts: CollectiveOptions | undefined): number {
  const s = opts?.sliceElems ?? DEFAULT_SLICE_ELEMS;
  if (!Number.isInteger(s) || s < 1) throw new RangeError(`sliceElems must be an integer >= 1, got ${s}`);
  return Math.min(s, link.maxMessageElems);
}

/** Checks that the caller's rank and world agree with the link's. */
export function checkRank(link: Link, rank: number, world: number): void {
  if (rank !== link.rank || world !== link.world) {
    throw new RangeError(
      `collective called as rank ${rank} of ${world} on the link of rank ${link.rank} of ${link.world}`,
    );
  }
}

/** Runs `body`; on error aborts the group (every rank's pending receives reject) and rethrows. */
export async function guarded<T>(link: Link, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (e) {
    link.abort(e);
    throw e;
  }
}

/**
 * `dst[off + i] += src[i]`, rounded to float32 on store. Four elements a turn: V8 runs this about
 * a quarter faster than the one-element loop (a ring step of SimpleCNN's gradient at W=2 adds
 * 272k elements).
 */
export function addInto(dst: Float32Array, off: number, src: Float32Array): void {
  const n = src.length;
  const d = dst.subarray(off, off + n);
  if (d.length !== n) throw new RangeError(`addInto: ${n} elements at ${off} overrun ${dst.length}`);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    d[i] = (d[i] ?? 0) + (src[i] ?? 0);
    d[i + 1] = (d[i + 1] ?? 0) + (src[i + 1] ?? 0);
    d[i + 2] = (d[i + 2] ?? 0) + (src[i + 2] ?? 0);
    d[i + 3] = (d[i + 3] ?? 0) + (src[i + 3] ?? 0);
  }
  for (; i < n; i++) d[i] = (d[i] ?? 0) + (src[i] ?? 0);
}

/** A Float32Array's bits as u32 words (fp16 pairs travel as float32-sized elements). */
/** How a ring step sums a received chunk into place: float32, or packed fp16 / bfloat16 pairs. */
export type RingAdd = 'add' | 'add-f16' | 'add-bf16';

const words = (f: Float32Array) => new Uint32Array(f.buffer, f.byteOffset, f.length);

/**
 * One ring step on `data` (n = data.length elements split over the ring): sends chunk `st.send`,
 * receives chunk `st.recv` and adds (`'add'`), adds as packed fp16 pairs (`'add-f16'`: each
 * element's bits are two halves, summed with one half rounding each) or bfloat16 pairs
 * (`'add-bf16'`, likewise) or copies (`'copy'`) it into place.
 */
export async function runRingStep(
  link: Link,
  fp: Fingerprint,
  data: Float32Array,
  st: RingStep,
  how: RingAdd | 'copy',
  sliceElems: number,
): Promise<void> {
  const n = data.length;
  const sendRange = chunkRange(st.send, n, link.world);
  const recvRange = chunkRange(st.recv, n, link.world);
  const key = (slice: number): { step: number; slice: number } => ({ step: st.step, slice });
  const base = { op: fp.op, coll: fp.coll, phase: st.phase, step: st.step } as const;
  link.observe({
    ...base,
    kind: 'send',
    from: link.rank,
    to: link.next,
    chunk: st.send,
    bytes: 4 * (sendRange.end - sendRange.start),
    t: nowMs(),
  });
  const pending: Promise<void>[] = sliceRanges(sendRange, sliceElems).map((s, k) =>
    link.send(fp, key(k), data.subarray(s.start, s.end)),
  );
  for (const [k, s] of sliceRanges(recvRange, sliceElems).entries()) {
    const sink = (v: Float32Array): void => {
      if (v.length !== s.end - s.start) {
        throw new CollectiveMismatchError(
          link.rank,
          link.prev,
          fp.coll,
          `slice ${k} of ${s.end - s.start} elements`,
          `${v.length} elements (different sliceElems?)`,
        );
      }
      if (how === 'add') addInto(data, s.start, v);
      else if (how === 'add-f16') addHalves(words(data), s.start, words(v));
      else if (how === 'add-bf16') addBf16(words(data), s.start, words(v));
      else data.set(v, s.start); // a same-type set copies the bits (fp16 pairs stay intact)
    };
    pending.push(link.recv(fp, key(k), sink));
  }
  await Promise.all(pending);
  link.observe({
    ...base,
    kind: 'recv',
    from: link.prev,
    to: link.rank,
    chunk: st.recv,
    bytes: 4 * (recvRange.end - recvRange.start),
    t: nowMs(),
  });
}
