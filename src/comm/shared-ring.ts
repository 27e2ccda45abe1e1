// One direction of the shared-memory transport: a single-producer, single-consumer ring of
// records in a SharedArrayBuffer. The sender copies a slice straight into the ring and publishes
// it with one Atomics.store of the head; the receiver reduces straight out of the ring and frees
// the space with one Atomics.store of the tail. Nothing is posted, cloned or transferred, and
// both sides wake each other with Atomics.notify (the waiting side uses Atomics.waitAsync, so a
// thread never blocks its event loop).
//
// Layout: a 64-byte header (int32 HEAD at 0, TAIL at 1: byte counters that wrap like C ints),
// then `capacity` bytes (a power of two) of records. A record is a 32-byte header of int32
// [len, op, coll, n, step, slice, 0, 0] and `len` float32, padded to 32 bytes; a record never
// wraps: where one does not fit before the end, a skip marker (len = -1) fills the rest.
import { COLLECTIVE_OPS, type CollectiveOp } from './errors.ts';

const HEAD = 0;
const TAIL = 1;
const HEADER_BYTES = 64;
const RECORD_HEADER_BYTES = 32;
const ALIGN = 32;
const SKIP = -1;

/** Ring capacity per direction: 4 MiB holds four 1 MiB slices (a ring step of SimpleCNN's gradient in flight twice). */
export const DEFAULT_RING_BYTES = 4 * 1024 * 1024;

/** One message as it sits in the ring: `data` views the shared memory until the record is released. */
export interface RingRecord {
  readonly op: CollectiveOp;
  readonly coll: number;
  readonly n: number;
  readonly step: number;
  readonly slice: number;
  readonly data: Float32Array;
  /** Bytes the record occupies (header, payload, padding): what release() frees. */
  readonly size: number;
}

/** A message's tags, as the writer takes them. */
export type RecordTags = Omit<RingRecord, 'data' | 'size'>;

const pad = (bytes: number): number => Math.ceil(bytes / ALIGN) * ALIGN;

/** The shared memory of one direction, with `capacity` bytes of records (a power of two, at least 64 KiB). */
export function sharedRingBuffer(capacity = DEFAULT_RING_BYTES): SharedArrayBuffer {
  if (!Number.isInteger(capacity) || capacity < 64 * 1024 || capacity > 2 ** 30 || (capacity & (capacity - 1)) !== 0)
    throw new RangeError(`shared ring capacity must be a power of two in [64 KiB, 1 GiB], got ${capacity} bytes`);
  return new SharedArrayBuffer(HEADER_BYTES + capacity);
}

/** Checks a buffer handed to a link and returns its record capacity. */
function capacityOf(sab: SharedArrayBuffer): number {
  const capacity = sab.byteLength - HEADER_BYTES;
  if (!(sab instanceof SharedArrayBuffer) || capacity < 64 * 1024 || (capacity & (capacity - 1)) !== 0)
    throw new RangeError(`not a shared ring buffer: ${String(sab?.byteLength)} bytes (make it with sharedRingBuffer)`);
  return capacity;
}

/** Atomics.waitAsync (ES2024: Node 16+, Chromium 87+, Safari 16.4+), absent from the ES2023 typings. */
type WaitAsync = (
  ta: Int32Array,
  index: number,
  value: number,
  timeoutMs?: number,
) => { readonly async: false; readonly value: string } | { readonly async: true; readonly value: Promise<string> };

const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;

/**
 * Whether this context can use the shared ring: SharedArrayBuffer exists (a page must be
 * cross-origin isolated for it: COOP same-origin + COEP require-corp) and Atomics.waitAsync does.
 */
export function sharedRingSupported(): boolean {
  const g = globalThis as { crossOriginIsolated?: boolean };
  return typeof SharedArrayBuffer === 'function' && waitAsync !== undefined && g.crossOriginIsolated !== false;
}

/** Resolves when `ctl[index]` may differ from `seen`, or after `timeoutMs` (a wake-up by notify counts too). */
function waitChange(ctl: Int32Array, index: number, seen: number, timeoutMs: number): Promise<void> {
  if (waitAsync === undefined) throw new Error('Atomics.waitAsync is missing: use the message transport here');
  const r = waitAsync(ctl, index, seen, Math.max(0, timeoutMs));
  return r.async ? r.value.then(() => undefined) : Promise.resolve();
}

/** The sending end. */
export class RingWriter {
  readonly capacity: number;
  /** Largest payload one record can carry, in float32 elements. */
  readonly maxElems: number;
  private readonly ctl: Int32Array;
  private readonly i32: Int32Array;
  private readonly f32: Float32Array;
  /** The tail the last tryWrite saw: a wait for space waits for it to move. */
  private seenTail = 0;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.capacity = capacityOf(buffer);
    this.maxElems = (this.capacity - RECORD_HEADER_BYTES) / 4;
    this.ctl = new Int32Array(buffer, 0, 2);
    this.i32 = new Int32Array(buffer, HEADER_BYTES, this.capacity / 4);
    this.f32 = new Float32Array(buffer, HEADER_BYTES, this.capacity / 4);
  }

  /** Copies one message into the ring and publishes it; false (nothing written) while the ring lacks the space. */
  tryWrite(tags: RecordTags, data: Float32Array): boolean {
    if (data.length > this.maxElems)
      throw new RangeError(`message of ${data.length} elements exceeds the shared ring's ${this.maxElems}`);
    const size = RECORD_HEADER_BYTES + pad(4 * data.length);
    let head = Atomics.load(this.ctl, HEAD);
    this.seenTail = Atomics.load(this.ctl, TAIL);
    const used = (head - this.seenTail) | 0;
    let free = this.capacity - used;
    let at = head & (this.capacity - 1);
    if (at + size > this.capacity) {
      // the skip is published on its own: a record as large as the ring then waits for an empty ring at 0
      const rest = this.capacity - at;
      if (free < rest) return false;
      this.i32[at / 4] = SKIP;
      head = (head + rest) | 0;
      Atomics.store(this.ctl, HEAD, head);
      Atomics.notify(this.ctl, HEAD);
      free -= rest;
      at = 0;
    }
    if (free < size) return false;
    const w = at / 4;
    this.i32.set([data.length, COLLECTIVE_OPS.indexOf(op(tags)), tags.coll, tags.n, tags.step, tags.slice, 0, 0], w);
    this.f32.set(data, w + RECORD_HEADER_BYTES / 4);
    Atomics.store(this.ctl, HEAD, (head + size) | 0);
    Atomics.notify(this.ctl, HEAD);
    return true;
  }

  /** Resolves once the reader may have freed space since the last tryWrite, or after `timeoutMs`. */
  waitForSpace(timeoutMs: number): Promise<void> {
    return waitChange(this.ctl, TAIL, this.seenTail, timeoutMs);
  }

  /** Wakes this end's own wait for space (the link is closing). */
  wake(): void {
    Atomics.notify(this.ctl, TAIL);
  }
}

function op(tags: RecordTags): CollectiveOp {
  if (!COLLECTIVE_OPS.includes(tags.op)) throw new RangeError(`unknown collective op ${String(tags.op)}`);
  return tags.op;
}

/** The receiving end. */
export class RingReader {
  readonly capacity: number;
  private readonly ctl: Int32Array;
  private readonly i32: Int32Array;
  /** The head the last empty peek() saw: a wait for data waits for it to move. */
  private seenHead = 0;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.capacity = capacityOf(buffer);
    this.ctl = new Int32Array(buffer, 0, 2);
    this.i32 = new Int32Array(buffer, HEADER_BYTES, this.capacity / 4);
  }

  /**
   * The oldest unreleased record, or undefined when the ring is empty. Skip markers are passed over
   * (and freed). Throws on a record no writer produces (the memory was written by something else).
   */
  peek(): RingRecord | undefined {
    for (;;) {
      const tail = Atomics.load(this.ctl, TAIL);
      const head = Atomics.load(this.ctl, HEAD);
      if (head === tail) {
        this.seenHead = head;
        return undefined;
      }
      const at = tail & (this.capacity - 1);
      const w = at / 4;
      const len = this.i32[w] ?? 0;
      if (len === SKIP) {
        this.free(this.capacity - at);
        continue;
      }
      const code = this.i32[w + 1] ?? -1;
      const opName = COLLECTIVE_OPS[code];
      const size = RECORD_HEADER_BYTES + pad(4 * len);
      if (opName === undefined || len < 0 || at + size > this.capacity || size > ((head - tail) | 0))
        throw new Error(`corrupt shared ring record at byte ${at}: length ${len}, op code ${code}`);
      return {
        op: opName,
        coll: this.i32[w + 2] ?? 0,
        n: this.i32[w + 3] ?? 0,
        step: this.i32[w + 4] ?? 0,
        slice: this.i32[w + 5] ?? 0,
        data: new Float32Array(this.buffer, HEADER_BYTES + at + RECORD_HEADER_BYTES, len),
        size,
      };
    }
  }

  /** Frees the record peek() returned (its view must no longer be read). */
  release(record: RingRecord): void {
    this.free(record.size);
  }

  /** Resolves once a record may have arrived since the last empty peek(), or after `timeoutMs`. */
  waitForData(timeoutMs: number): Promise<void> {
    return waitChange(this.ctl, HEAD, this.seenHead, timeoutMs);
  }

  /** Wakes this end's own wait for data (the link is closing). */
  wake(): void {
    Atomics.notify(this.ctl, HEAD);
  }

  private free(bytes: number): void {
    Atomics.store(this.ctl, TAIL, (Atomics.load(this.ctl, TAIL) + bytes) | 0);
    Atomics.notify(this.ctl, TAIL);
  }
}
