// A single-producer / single-consumer ring of fixed-size message slots in one SharedArrayBuffer:
// one per ring direction (rank r writes, rank r+1 reads). Non-blocking operations only; waiting
// is the link's job (atomics-wait.ts). Counters are message counts that wrap at 2^32; the slot
// count is a power of two so `counter & (slots - 1)` stays continuous across the wrap.
//
// Layout: control block of CTRL_BYTES with the written count at Int32 index WRITTEN and the read
// count at READ (64 bytes apart, so producer and consumer do not share a cache line), then
// `slots` slots of SLOT_HEADER_BYTES (op code, collective, n, step, slice, length) + payload.
import type { CollectiveOp } from './errors.ts';
import type { Incoming } from './mailbox.ts';

/** Int32 index of the producer's count of messages written. */
export const WRITTEN = 0;
/** Int32 index of the consumer's count of messages read. */
export const READ = 16;
const CTRL_BYTES = 128;
const SLOT_HEADER_BYTES = 32;
const OPS: readonly CollectiveOp[] = ['allReduce', 'reduceScatter', 'allGather', 'broadcast', 'barrier', 'allReduceScalars'];

function slotStride(slotElems: number): number {
  return Math.ceil((SLOT_HEADER_BYTES + slotElems * 4) / 64) * 64;
}

/** Bytes of a ring with `slots` slots of `slotElems` float32 each. */
export function sabRingBytes(slots: number, slotElems: number): number {
  return CTRL_BYTES + slots * slotStride(slotElems);
}

/** A message header as written into a slot. */
export interface SlotHeader {
  readonly op: CollectiveOp;
  readonly coll: number;
  readonly n: number;
  readonly step: number;
  readonly slice: number;
}

/** One direction's ring over a SharedArrayBuffer (both ends construct one over the same buffer). */
export class SabRing {
  readonly ctrl: Int32Array;
  private readonly headers: Int32Array[] = [];
  private readonly payloads: Float32Array[] = [];

  /** Allocates a fresh ring (the producer does this and sends `sab` to the consumer). */
  static create(slots: number, slotElems: number): SabRing {
    return new SabRing(new SharedArrayBuffer(sabRingBytes(slots, slotElems)), slots, slotElems);
  }

  constructor(
    readonly sab: SharedArrayBuffer,
    readonly slots: number,
    readonly slotElems: number,
  ) {
    if (!Number.isInteger(slots) || slots < 1 || (slots & (slots - 1)) !== 0) throw new RangeError(`slot count must be a power of two, got ${slots}`);
    if (!Number.isInteger(slotElems) || slotElems < 1) throw new RangeError(`slot size must be an integer >= 1, got ${slotElems}`);
    if (sab.byteLength !== sabRingBytes(slots, slotElems)) throw new RangeError(`shared ring of ${sab.byteLength} bytes does not fit ${slots} x ${slotElems}`);
    this.ctrl = new Int32Array(sab, 0, CTRL_BYTES / 4);
    const stride = slotStride(slotElems);
    for (let i = 0; i < slots; i++) {
      const at = CTRL_BYTES + i * stride;
      this.headers.push(new Int32Array(sab, at, SLOT_HEADER_BYTES / 4));
      this.payloads.push(new Float32Array(sab, at + SLOT_HEADER_BYTES, slotElems));
    }
  }

  /** Producer: slots free for writing now. */
  freeSlots(): number {
    return this.slots - ((Atomics.load(this.ctrl, WRITTEN) - Atomics.load(this.ctrl, READ)) | 0);
  }

  /** Producer: writes one message into the next slot (caller checked freeSlots() > 0) and wakes the consumer. */
  write(h: SlotHeader, data: Float32Array): void {
    if (data.length > this.slotElems) throw new RangeError(`message of ${data.length} elements exceeds the slot's ${this.slotElems}`);
    const w = Atomics.load(this.ctrl, WRITTEN);
    const i = w & (this.slots - 1);
    const hd = this.headers[i];
    const pl = this.payloads[i];
    if (hd === undefined || pl === undefined) throw new Error('unreachable');
    hd[0] = OPS.indexOf(h.op);
    hd[1] = h.coll;
    hd[2] = h.n;
    hd[3] = h.step;
    hd[4] = h.slice;
    hd[5] = data.length;
    pl.set(data);
    Atomics.store(this.ctrl, WRITTEN, (w + 1) | 0);
    Atomics.notify(this.ctrl, WRITTEN);
  }

  /** Consumer: messages waiting to be read. */
  available(): number {
    return (Atomics.load(this.ctrl, WRITTEN) - Atomics.load(this.ctrl, READ)) | 0;
  }

  /** Consumer: the oldest unread message, as a view into its slot (valid until release()). */
  peek(): Incoming | undefined {
    if (this.available() <= 0) return undefined;
    const i = Atomics.load(this.ctrl, READ) & (this.slots - 1);
    const hd = this.headers[i];
    const pl = this.payloads[i];
    if (hd === undefined || pl === undefined) throw new Error('unreachable');
    const op = OPS[hd[0] ?? -1];
    const len = hd[5] ?? -1;
    if (op === undefined || len < 0 || len > this.slotElems) throw new Error(`corrupt shared ring slot (op ${hd[0]}, length ${len})`);
    return { op, coll: hd[1] ?? 0, n: hd[2] ?? 0, step: hd[3] ?? 0, slice: hd[4] ?? 0, data: pl.subarray(0, len) };
  }

  /** Consumer: frees the oldest slot and wakes the producer. */
  release(): void {
    Atomics.store(this.ctrl, READ, (Atomics.load(this.ctrl, READ) + 1) | 0);
    Atomics.notify(this.ctrl, READ);
  }

  /** Wakes every waiter on either counter (shutdown). */
  wakeAll(): void {
    Atomics.notify(this.ctrl, WRITTEN);
    Atomics.notify(this.ctrl, READ);
  }
}
