// The SharedArrayBuffer transport, for cross-origin-isolated pages and Node. Each rank allocates
// the ring for its outgoing direction and sends it to `next` over the MessagePort; data then moves
// through shared memory with Atomics (the ports stay for set-up and poison messages).
//
// Trade-off against port-link.ts. Both copy a message once on the sender and let the receiver
// reduce straight out of the message memory. SAB: no buffer changes hands and no message event is
// dispatched (the receiver is woken by Atomics.notify), a full ring back-pressures the sender so
// at most `slots` messages per direction are in flight, and the memory is fixed: slots x slotElems
// x 4 bytes per direction (default 2 x 1 MiB), allocated once. But it needs crossOriginIsolated
// (COOP/COEP headers) in browsers and a waiting strategy (atomics-wait.ts), and every slot line is
// written by one core right after the other core read it. MessagePort works on any page; its
// buffers travel round the ring with the data and each message is one event-loop task per side.
// Measured in Node (bench/allreduce.mjs, 2 vCPUs): MessagePort was as fast or faster at every
// size and world size, so it is the default transport and this one is opt-in.
import { CollectiveTimeoutError } from './errors.ts';
import { waitWhileEqual } from './atomics-wait.ts';
import type { WaitMode } from './atomics-wait.ts';
import { LinkBase } from './link-base.ts';
import { DEFAULT_SLICE_ELEMS, nowMs } from './link.ts';
import type { Fingerprint, LinkOptions, MessageKey, RingPorts } from './link.ts';
import { READ, SabRing, WRITTEN } from './sab-ring.ts';

/** Options of the SharedArrayBuffer transport. */
export interface SabLinkOptions extends LinkOptions {
  /** Slots per direction, a power of two (default 2: double buffering; more did not help in bench/allreduce.mjs). */
  readonly slots?: number;
  /** Elements per slot = largest message (default DEFAULT_SLICE_ELEMS = 1 MiB of float32). */
  readonly slotElems?: number;
  /** How to wait on shared memory (default 'auto'). */
  readonly wait?: WaitMode;
}

/** How long the pump sleeps between re-checks when nothing wakes it, ms (only bounds idle polling). */
const PUMP_IDLE_MS = 250;

/** Whether the SharedArrayBuffer transport can run here (SAB exists and, in a browser, the page is cross-origin isolated). */
export function sabTransportAvailable(): boolean {
  if (typeof SharedArrayBuffer !== 'function') return false;
  const coi = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return coi !== false;
}

/** Link over a SharedArrayBuffer ring per direction. Create with createSabLink. */
export class SabLink extends LinkBase {
  readonly transport = 'sab' as const;
  readonly maxMessageElems: number;
  private readonly tx: SabRing;
  private rx: SabRing | undefined;
  private readonly mode: WaitMode;
  private pumping = false;
  private blockedSenders = 0;
  private stopped = false;
  private sendTail: Promise<void> = Promise.resolve();
  private gotRing: ((ring: SabRing) => void) | undefined;
  private ringError: ((e: Error) => void) | undefined;

  constructor(opts: SabLinkOptions, ports: RingPorts) {
    super(opts, ports.next, ports.prev);
    if (!sabTransportAvailable()) throw new Error('SharedArrayBuffer transport needs SharedArrayBuffer and a cross-origin-isolated page');
    this.mode = opts.wait ?? 'auto';
    this.tx = SabRing.create(opts.slots ?? 2, opts.slotElems ?? DEFAULT_SLICE_ELEMS);
    this.maxMessageElems = this.tx.slotElems;
    this.nextPort.postMessage({ t: 'sab', sab: this.tx.sab, slots: this.tx.slots, slotElems: this.tx.slotElems });
  }

  get stagingBytes(): number {
    return this.tx.sab.byteLength;
  }

  /** Resolves once the ring from `prev` has arrived (rejects after the link's timeout). */
  ready(): Promise<void> {
    if (this.rx !== undefined) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const e = new Error(`rank ${this.rank}: no shared ring from rank ${this.prev} within ${this.timeoutMs} ms`);
        reject(e);
        this.failGroup(this.prev, this.rank, e.message);
      }, this.timeoutMs);
      this.gotRing = () => {
        clearTimeout(timer);
        resolve();
      };
      this.ringError = (e) => {
        clearTimeout(timer);
        reject(e);
      };
    });
  }

  /**
   * Sends go through one FIFO: only the head waits for ring space, so a burst of slices costs one
   * wake-up per freed slot instead of waking every queued sender on every release.
   */
  protected transmit(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void> {
    const run = this.sendTail.then(() => this.writeOne(fp, key, data));
    this.sendTail = run.catch(() => undefined);
    return run;
  }

  private async writeOne(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void> {
    const deadline = nowMs() + this.timeoutMs;
    while (this.tx.freeSlots() === 0) {
      this.assertUsable();
      const read = Atomics.load(this.tx.ctrl, READ);
      if (this.tx.freeSlots() > 0) break;
      const remaining = deadline - nowMs();
      if (remaining <= 0) {
        const at = { op: fp.op, coll: fp.coll, step: key.step, slice: key.slice };
        const err = new CollectiveTimeoutError(this.rank, this.next, at, this.timeoutMs, 'space');
        this.failGroup(this.next, this.rank, err.message);
        throw err;
      }
      this.blockedSenders++;
      this.startPump();
      try {
        await waitWhileEqual(this.tx.ctrl, READ, read, remaining, this.mode);
      } finally {
        this.blockedSenders--;
      }
    }
    this.assertUsable();
    this.tx.write({ op: fp.op, coll: fp.coll, n: fp.n, step: key.step, slice: key.slice }, data);
  }

  protected handle(msg: Record<string, unknown> & { t: string }, from: 'next' | 'prev'): boolean {
    if (msg.t !== 'sab' || from !== 'prev' || this.rx !== undefined) return false;
    const { sab, slots, slotElems } = msg;
    try {
      if (!(sab instanceof SharedArrayBuffer) || typeof slots !== 'number' || typeof slotElems !== 'number') throw new Error('bad shared ring message');
      this.rx = new SabRing(sab, slots, slotElems);
    } catch (e) {
      this.ringError?.(e instanceof Error ? e : new Error(String(e)));
      return false;
    }
    this.gotRing?.(this.rx);
    return true;
  }

  protected override receiveWaiting(): void {
    this.startPump();
  }

  /** Moves every message already in the incoming ring to its waiter (in place) or the mailbox (copied). */
  protected override drainNow(): number {
    const rx = this.rx;
    if (rx === undefined) return 0;
    let moved = 0;
    for (let msg = rx.peek(); msg !== undefined && !this.stopped; msg = rx.peek()) {
      this.box.deliver(msg, false);
      rx.release();
      moved++;
    }
    return moved;
  }

  protected override onShutdown(): void {
    this.ringError?.(this.failure ?? new Error(`rank ${this.rank}: link closed`));
    this.stopped = true;
    this.tx.wakeAll();
    this.rx?.wakeAll();
  }

  private startPump(): void {
    if (this.pumping || this.stopped || this.rx === undefined) return;
    this.pumping = true;
    void this.pump();
  }

  /** Runs while someone waits: delivers incoming messages as they land. */
  private async pump(): Promise<void> {
    const rx = this.rx;
    try {
      if (rx === undefined) return;
      while (!this.stopped && (this.box.waiting > 0 || this.blockedSenders > 0)) {
        const written = Atomics.load(rx.ctrl, WRITTEN);
        if (this.drainNow() > 0) continue;
        await waitWhileEqual(rx.ctrl, WRITTEN, written, PUMP_IDLE_MS, this.mode);
      }
    } catch (e) {
      this.abort(e);
    } finally {
      // cleared in the same synchronous run as the loop's last check, so a receive that starts
      // waiting right after sees pumping === false and starts a new pump
      this.pumping = false;
    }
  }
}

/**
 * Creates the SharedArrayBuffer link of one rank: sends this rank's outgoing ring to `next` over
 * the port and waits for `prev`'s. Every rank must call it at about the same time.
 */
export async function createSabLink(opts: SabLinkOptions, ports: RingPorts): Promise<SabLink> {
  if (!sabTransportAvailable()) throw new Error('SharedArrayBuffer transport needs SharedArrayBuffer and a cross-origin-isolated page');
  const link = new SabLink(opts, ports);
  await link.ready();
  return link;
}
