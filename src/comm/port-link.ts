// The MessagePort transport. Each message copies its slice once into an ArrayBuffer (the caller
// keeps its gradient buffer) and posts it with that buffer in the transfer list, so postMessage
// itself is zero-copy (performance-facts G8/G10: ~0.04-0.07 ms round trip for 2.18 MB, against
// 2-11 ms for a structured clone). The receiver reduces straight out of the transferred buffer
// and then keeps it for its own next send: in a ring every rank receives as many messages of each
// size as it sends, so buffers travel round the ring with the data and, after the first step,
// nothing is allocated (a fresh 1 MiB ArrayBuffer costs page faults on first touch, and garbage).
// Needs no cross-origin isolation.
import { LinkBase } from './link-base.ts';
import { DEFAULT_SLICE_ELEMS } from './link.ts';
import type { Fingerprint, LinkOptions, MessageKey, RingPorts, Transport } from './link.ts';
import type { CollectiveOp } from './errors.ts';

/** A data message on the wire: `len` float32 at the start of `buf`; `pooled`: the receiver may reuse `buf`. */
interface DataMessage {
  readonly t: 'data';
  readonly op: CollectiveOp;
  readonly coll: number;
  readonly n: number;
  readonly step: number;
  readonly slice: number;
  readonly buf: ArrayBuffer;
  readonly len: number;
  readonly pooled: boolean;
}

/** Messages of at least this many bytes travel in pooled buffers; smaller ones are plain copies. */
const POOL_MIN_BYTES = 16 * 1024;
/** Free buffers kept per size class (a rank that only receives, like the end of a broadcast chain, drops the rest). */
const POOL_DEPTH = 8;

/** Options of the MessagePort transport. */
export interface PortLinkOptions extends LinkOptions {
  /** Largest message in elements (default DEFAULT_SLICE_ELEMS = 1 MiB of float32). */
  readonly maxMessageElems?: number;
}

function sizeClass(bytes: number): number {
  return 2 ** Math.ceil(Math.log2(bytes));
}

/** Link over two MessagePorts with transferred ArrayBuffers. */
export class PortLink extends LinkBase {
  readonly transport: Transport = 'message';
  readonly maxMessageElems: number;
  private readonly pool = new Map<number, ArrayBuffer[]>();

  constructor(opts: PortLinkOptions, ports: RingPorts) {
    super(opts, ports.next, ports.prev);
    this.maxMessageElems = opts.maxMessageElems ?? DEFAULT_SLICE_ELEMS;
  }

  get stagingBytes(): number {
    let bytes = 0;
    for (const [cls, free] of this.pool) bytes += cls * free.length;
    return bytes;
  }

  protected async transmit(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void> {
    const pooled = data.byteLength >= POOL_MIN_BYTES;
    let buf: ArrayBuffer;
    if (pooled) {
      const cls = sizeClass(data.byteLength);
      buf = this.pool.get(cls)?.pop() ?? new ArrayBuffer(cls);
      new Float32Array(buf, 0, data.length).set(data);
    } else {
      buf = data.slice().buffer;
    }
    const msg: DataMessage = {
      t: 'data',
      op: fp.op,
      coll: fp.coll,
      n: fp.n,
      step: key.step,
      slice: key.slice,
      buf,
      len: data.length,
      pooled,
    };
    this.nextPort.postMessage(msg, [buf]);
  }

  protected handle(raw: Record<string, unknown> & { t: string }, from: 'next' | 'prev'): boolean {
    if (raw.t !== 'data' || from !== 'prev') return false;
    const msg = raw as unknown as DataMessage;
    if (!(msg.buf instanceof ArrayBuffer) || !(msg.len >= 0 && msg.len * 4 <= msg.buf.byteLength)) return false;
    const buf = msg.buf;
    const release = msg.pooled ? () => this.keep(buf) : undefined;
    this.box.deliver({
      op: msg.op,
      coll: msg.coll,
      n: msg.n,
      step: msg.step,
      slice: msg.slice,
      data: new Float32Array(buf, 0, msg.len),
      release,
    });
    return true;
  }

  /** A consumed incoming buffer becomes a free buffer for this rank's next send. */
  private keep(buf: ArrayBuffer): void {
    const free = this.pool.get(buf.byteLength) ?? [];
    if (free.length < POOL_DEPTH) free.push(buf);
    this.pool.set(buf.byteLength, free);
  }
}

/** Creates the MessagePort link of one rank from its two ring ports (see createRingPorts). */
export function createPortLink(opts: PortLinkOptions, ports: RingPorts): PortLink {
  return new PortLink(opts, ports);
}
