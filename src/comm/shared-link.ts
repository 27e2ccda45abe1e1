// The shared-memory transport: the link's bytes go through two SharedArrayBuffer rings (one
// written by this rank for `next`, one written by `prev` for this rank; shared-ring.ts), so a
// gradient slice is copied once into shared memory by the sender and reduced straight out of it by
// the receiver, with no message posted. The MessagePorts stay as the control channel: the abort
// poison and the close that tells a rank its neighbour's worker is gone travel over them as on
// the message transport (link-base.ts), and the mailbox keeps the tag matching and the deadlines.
// Needs SharedArrayBuffer and Atomics.waitAsync (a page must be cross-origin isolated).
import { CollectiveTimeoutError } from './errors.ts';
import { LinkBase } from './link-base.ts';
import { DEFAULT_SLICE_ELEMS } from './link.ts';
import type { Fingerprint, LinkOptions, MessageKey, RingPorts, Transport } from './link.ts';
import { RingReader, RingWriter } from './shared-ring.ts';
import type { RingRecord } from './shared-ring.ts';

/** Spare copies kept per length. */
const SPARE_DEPTH = 4;
/** How long one wait for ring space lasts before the link re-checks for an abort or a closed port. */
const SPACE_POLL_MS = 50;

/** Options of the shared-memory transport. */
export interface SharedLinkOptions extends LinkOptions {
  /** Largest message in elements (default DEFAULT_SLICE_ELEMS = 1 MiB of float32, capped by the ring). */
  readonly maxMessageElems?: number;
}

/** Link over two shared-memory rings, with the MessagePorts for abort and liveness. */
export class SharedLink extends LinkBase {
  readonly transport: Transport = 'shared';
  readonly maxMessageElems: number;
  private readonly writer: RingWriter;
  private readonly reader: RingReader;
  private stopped = false;
  /** Free copies of early records, by length (a ring step receives as many of each size as it did before). */
  private readonly spare = new Map<number, Float32Array[]>();

  constructor(opts: SharedLinkOptions, ports: RingPorts) {
    super(opts, ports.next, ports.prev);
    if (ports.shared === undefined)
      throw new Error(`rank ${opts.rank}: the shared transport needs the ring's shared buffers`);
    this.writer = new RingWriter(ports.shared.out);
    this.reader = new RingReader(ports.shared.in);
    this.maxMessageElems = Math.min(opts.maxMessageElems ?? DEFAULT_SLICE_ELEMS, this.writer.maxElems);
    void this.pump();
  }

  /** The ring this rank writes (each ring is counted once, by its writer) and the spare copies it keeps. */
  get stagingBytes(): number {
    let bytes = this.writer.buffer.byteLength;
    for (const free of this.spare.values()) for (const f of free) bytes += f.byteLength;
    return bytes;
  }

  override close(): void {
    super.close();
    this.stopped = true;
    this.reader.wake();
    this.writer.wake();
  }

  protected override failGroup(failedRank: number, reportedBy: number, reason: string): void {
    super.failGroup(failedRank, reportedBy, reason);
    this.writer.wake();
  }

  protected async transmit(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void> {
    const tags = { op: fp.op, coll: fp.coll, n: fp.n, step: key.step, slice: key.slice };
    const deadline = performance.now() + this.timeoutMs;
    while (!this.writer.tryWrite(tags, data)) {
      this.assertUsable();
      if (this.nextGone) {
        this.failGroup(this.next, this.rank, `the port to rank ${this.next} closed (worker gone?)`);
        this.assertUsable();
      }
      const left = deadline - performance.now();
      if (left <= 0) {
        const err = new CollectiveTimeoutError(this.rank, this.next, { ...tags }, this.timeoutMs, 'space');
        this.failGroup(this.next, this.rank, err.message);
        throw err;
      }
      await this.writer.waitForSpace(Math.min(left, SPACE_POLL_MS));
    }
  }

  protected handle(): boolean {
    return false; // no data travels over the ports
  }

  /**
   * `prev` wrote its last records into the ring before its port closed, but the close event may
   * come before the pump wakes for them: they are handed over first, so only a receive whose record
   * never came fails.
   */
  protected override prevClosed(): void {
    if (this.drain()) super.prevClosed();
  }

  /** Hands every record that arrives to the mailbox, until the link closes. */
  private async pump(): Promise<void> {
    while (!this.stopped) {
      if (!this.drain()) return;
      if (!this.stopped) await this.reader.waitForData(this.timeoutMs);
    }
  }

  /** Hands the records in the ring to the mailbox; false (the group failed) on a malformed record. */
  private drain(): boolean {
    try {
      for (let rec = this.reader.peek(); rec !== undefined && !this.stopped; rec = this.reader.peek())
        this.deliver(rec);
      return true;
    } catch (e) {
      this.failGroup(this.prev, this.rank, e instanceof Error ? e.message : String(e));
      return false;
    }
  }

  /**
   * A receive waiting for the record reads it in place (the mailbox runs its sink at once and then
   * the release); any other record is copied out first, so the ring never waits on a receive that
   * comes later (messages of collectives in flight together may arrive in either order); copies
   * are reused, as the port link reuses its buffers, so a steady run allocates nothing.
   */
  private deliver(rec: RingRecord): void {
    if (this.failure !== undefined) {
      this.reader.release(rec);
      return;
    }
    const base = { op: rec.op, coll: rec.coll, n: rec.n, step: rec.step, slice: rec.slice };
    if (this.box.waitingFor(rec.coll, rec.step, rec.slice)) {
      let released = false;
      const release = (): void => {
        released = true;
        this.reader.release(rec);
      };
      this.box.deliver({ ...base, data: rec.data, release });
      if (!released) this.reader.release(rec); // the mailbox failed it (duplicate, group aborted)
    } else {
      const copy = this.spare.get(rec.data.length)?.pop() ?? new Float32Array(rec.data.length);
      copy.set(rec.data);
      this.reader.release(rec);
      const release = (): void => {
        const free = this.spare.get(copy.length) ?? [];
        if (free.length < SPARE_DEPTH) free.push(copy);
        this.spare.set(copy.length, free);
      };
      this.box.deliver({ ...base, data: copy, release });
    }
  }
}

/** Creates the shared-memory link of one rank from its ring ports and shared buffers (see createRingPorts). */
export function createSharedLink(opts: SharedLinkOptions, ports: RingPorts): SharedLink {
  return new SharedLink(opts, ports);
}
