// The transport-neutral half of a link (port-link.ts and shared-link.ts add the bytes): rank bookkeeping, collective sequence numbers, the mailbox of the
// incoming direction, the observer, and group abort. Abort travels as a poison message over the
// MessagePorts in both directions round the ring; each rank forwards the first one it sees, so one
// failure reaches every rank, and every pending and later receive rejects naming the failed rank.
import { PeerFailedError, reasonOf } from './errors.ts';
import type { CollectiveOp } from './errors.ts';
import { DEFAULT_TIMEOUT_MS } from './link.ts';
import type { Fingerprint, Link, LinkOptions, MessageKey, TransferEvent, TransferObserver, Transport } from './link.ts';
import { Mailbox } from './mailbox.ts';

/** A poison message: the group is aborted. */
interface AbortMessage {
  readonly t: 'abort';
  readonly failedRank: number;
  readonly reportedBy: number;
  readonly reason: string;
}

/** Narrows an incoming port message to a plain record with a string `t` field. */
export function asMessage(data: unknown): (Record<string, unknown> & { t: string }) | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const t = (data as { t?: unknown }).t;
  return typeof t === 'string' ? (data as Record<string, unknown> & { t: string }) : undefined;
}

/** Base of PortLink: everything but moving the bytes. */
export abstract class LinkBase implements Link {
  readonly rank: number;
  readonly world: number;
  readonly next: number;
  readonly prev: number;
  readonly timeoutMs: number;
  abstract readonly transport: Transport;
  abstract readonly maxMessageElems: number;
  abstract readonly stagingBytes: number;
  protected readonly box: Mailbox;
  private seq = 0;
  private failed: Error | undefined;
  private closed = false;
  /** The port to `next` closed: its worker is gone. */
  protected nextGone = false;
  private readonly observer: TransferObserver | undefined;
  private readonly onNext = (ev: MessageEvent): void => this.onMessage(ev.data, 'next');
  private readonly onPrev = (ev: MessageEvent): void => this.onMessage(ev.data, 'prev');
  private readonly onNextClose = (): void => {
    this.nextGone = true;
  };
  private readonly onPrevClose = (): void => this.prevClosed();

  constructor(
    opts: LinkOptions,
    protected readonly nextPort: MessagePort,
    protected readonly prevPort: MessagePort,
  ) {
    const { rank, world } = opts;
    if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer >= 1, got ${world}`);
    if (!Number.isInteger(rank) || rank < 0 || rank >= world)
      throw new RangeError(`rank ${rank} is outside [0, ${world})`);
    this.rank = rank;
    this.world = world;
    this.next = (rank + 1) % world;
    this.prev = (rank - 1 + world) % world;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.observer = opts.observer;
    this.box = new Mailbox({
      rank,
      peer: this.prev,
      timeoutMs: this.timeoutMs,
      onFatal: (e, failedRank) => this.failGroup(failedRank, rank, reasonOf(e)),
    });
    nextPort.addEventListener('message', this.onNext);
    prevPort.addEventListener('message', this.onPrev);
    nextPort.addEventListener('close', this.onNextClose);
    prevPort.addEventListener('close', this.onPrevClose);
    nextPort.start();
    prevPort.start();
  }

  /** The port from `prev` closed: its worker is gone or closed its link; nothing more will arrive. */
  protected prevClosed(): void {
    this.box.peerClosed(new Error(`the port from rank ${this.prev} closed (worker gone?)`));
  }

  get failure(): Error | undefined {
    return this.failed;
  }

  beginCollective(op: CollectiveOp, n: number): Fingerprint {
    this.assertUsable();
    const coll = this.seq;
    this.seq = (this.seq + 1) | 0; // int32, wrapping like a C int
    return { op, coll, n };
  }

  async send(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void> {
    this.assertUsable();
    if (this.nextGone) {
      this.failGroup(this.next, this.rank, `the port to rank ${this.next} closed (worker gone?)`);
      this.assertUsable();
    }
    if (data.length > this.maxMessageElems)
      throw new RangeError(`message of ${data.length} elements exceeds the link's ${this.maxMessageElems}`);
    return this.transmit(fp, key, data);
  }

  recv(fp: Fingerprint, key: MessageKey, sink: (data: Float32Array) => void): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const p = this.box.take(fp, key, sink);
    return p;
  }

  observe(event: TransferEvent): void {
    this.observer?.(event);
  }

  abort(reason: unknown): void {
    this.failGroup(this.rank, this.rank, reasonOf(reason));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.nextPort.removeEventListener('message', this.onNext);
    this.prevPort.removeEventListener('message', this.onPrev);
    this.nextPort.removeEventListener('close', this.onNextClose);
    this.prevPort.removeEventListener('close', this.onPrevClose);
    this.box.fail(this.failed ?? new Error(`rank ${this.rank}: link closed`));
    this.nextPort.close();
    this.prevPort.close();
  }

  /** Transport: posts one message to `next`. */
  protected abstract transmit(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void>;

  /** Transport: a port message other than abort. Returns false if it is not one the transport knows. */
  protected abstract handle(msg: Record<string, unknown> & { t: string }, from: 'next' | 'prev'): boolean;

  /** Throws the group's failure, or an error if the link is closed. */
  protected assertUsable(): void {
    if (this.failed !== undefined) throw this.failed;
    if (this.closed) throw new Error(`rank ${this.rank}: link closed`);
  }

  /** Marks the group failed, tells both neighbours, rejects everything pending here. First call wins. */
  protected failGroup(failedRank: number, reportedBy: number, reason: string): void {
    if (this.failed !== undefined || this.closed) return;
    this.failed = new PeerFailedError(this.rank, failedRank, reportedBy, reason);
    const poison: AbortMessage = { t: 'abort', failedRank, reportedBy, reason };
    for (const port of [this.nextPort, this.prevPort]) {
      try {
        port.postMessage(poison);
      } catch {
        // a closed port: the neighbour is gone and learns nothing more
      }
    }
    this.box.fail(this.failed);
  }

  private onMessage(data: unknown, from: 'next' | 'prev'): void {
    const msg = asMessage(data);
    if (msg?.t === 'abort') {
      const m = msg as unknown as AbortMessage;
      this.failGroup(m.failedRank, m.reportedBy, m.reason);
      return;
    }
    if (msg === undefined || !this.handle(msg, from)) {
      const peer = from === 'next' ? this.next : this.prev;
      this.failGroup(peer, this.rank, `protocol error: unexpected message from rank ${peer}`);
    }
  }
}
