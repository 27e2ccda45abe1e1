// Matches tagged incoming messages to the receives waiting for them. Messages are keyed by
// (collective, step, slice), so two collectives in flight at once never see each other's data;
// a message that arrives before its receive is stored, a receive that comes first waits with a
// deadline. The links push messages in (port-link.ts, shared-link.ts).
import { CollectiveMismatchError, CollectiveTimeoutError } from './errors.ts';
import type { CollectiveOp } from './errors.ts';
import type { Fingerprint, MessageKey } from './link.ts';

/** A message as it arrives from the previous rank. */
export interface Incoming {
  readonly op: CollectiveOp;
  readonly coll: number;
  readonly n: number;
  readonly step: number;
  readonly slice: number;
  readonly data: Float32Array;
  /** Called once `data` has been consumed (the port link returns the buffer to its sender's pool). */
  readonly release?: () => void;
}

/** What the mailbox needs from its link. */
export interface MailboxOwner {
  readonly rank: number;
  /** The rank messages come from. */
  readonly peer: number;
  readonly timeoutMs: number;
  /** A timeout or a mismatch: the owner aborts the group, blaming `failedRank`. */
  onFatal(error: Error, failedRank: number): void;
}

interface Waiter {
  readonly fp: Fingerprint;
  readonly key: MessageKey;
  readonly sink: (data: Float32Array) => void;
  readonly resolve: () => void;
  readonly reject: (e: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout> | undefined;
}

function keyOf(coll: number, step: number, slice: number): string {
  return `${coll}/${step}/${slice}`;
}

/** Tag matching with deadlines for one incoming direction. */
export class Mailbox {
  private readonly stored = new Map<string, Incoming>();
  private readonly waiters = new Map<string, Waiter>();
  private failure: Error | undefined;
  private peerGone: Error | undefined;

  constructor(private readonly owner: MailboxOwner) {}

  /** Number of receives waiting. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Whether a receive waits for message (coll, step, slice) now. */
  waitingFor(coll: number, step: number, slice: number): boolean {
    return this.failure === undefined && this.waiters.has(keyOf(coll, step, slice));
  }

  /** Hands a message (its data a transferred buffer the mailbox may keep) to its waiting receive, or stores it. */
  deliver(msg: Incoming): void {
    if (this.failure !== undefined) return;
    const key = keyOf(msg.coll, msg.step, msg.slice);
    const waiter = this.waiters.get(key);
    if (waiter !== undefined) {
      this.waiters.delete(key);
      clearTimeout(waiter.timer);
      this.settle(waiter, msg);
      return;
    }
    if (this.stored.has(key)) {
      this.owner.onFatal(
        new Error(`rank ${this.owner.rank}: duplicate message ${msg.op} #${key} from rank ${this.owner.peer}`),
        this.owner.peer,
      );
      return;
    }
    this.stored.set(key, msg);
  }

  /** Waits for message (fp, key) and runs `sink` on it. */
  take(fp: Fingerprint, key: MessageKey, sink: (data: Float32Array) => void): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const k = keyOf(fp.coll, key.step, key.slice);
    if (this.waiters.has(k))
      return Promise.reject(new Error(`rank ${this.owner.rank}: two receives wait for message ${fp.op} #${k}`));
    return new Promise<void>((resolve, reject) => {
      const msg = this.stored.get(k);
      if (msg !== undefined) {
        this.stored.delete(k);
        this.settle({ fp, key, sink, resolve, reject, timer: undefined }, msg);
        return;
      }
      const { rank, peer, timeoutMs } = this.owner;
      if (this.peerGone !== undefined) {
        reject(this.peerGone);
        this.owner.onFatal(this.peerGone, peer);
        return;
      }
      const timer = setTimeout(() => {
        this.waiters.delete(k);
        const err = new CollectiveTimeoutError(
          rank,
          peer,
          { op: fp.op, coll: fp.coll, step: key.step, slice: key.slice },
          timeoutMs,
        );
        reject(err);
        this.owner.onFatal(err, peer);
      }, timeoutMs);
      this.waiters.set(k, { fp, key, sink, resolve, reject, timer });
    });
  }

  /**
   * The sender closed its end: nothing more will arrive. Stored messages stay receivable; a receive
   * that is waiting, or a later one whose message is not stored, fails the group with `error`.
   */
  peerClosed(error: Error): void {
    if (this.failure !== undefined || this.peerGone !== undefined) return;
    this.peerGone = error;
    if (this.waiters.size > 0) this.owner.onFatal(error, this.owner.peer);
  }

  /** Rejects every waiting receive with `error`, drops stored messages; later receives reject at once. */
  fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.stored.clear();
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.reject(error);
    }
  }

  private settle(w: Waiter, msg: Incoming): void {
    if (msg.op !== w.fp.op || msg.n !== w.fp.n) {
      const err = new CollectiveMismatchError(
        this.owner.rank,
        this.owner.peer,
        w.fp.coll,
        `${w.fp.op}(n=${w.fp.n})`,
        `${msg.op}(n=${msg.n})`,
      );
      w.reject(err);
      this.owner.onFatal(err, this.owner.peer);
      return;
    }
    try {
      w.sink(msg.data);
      w.resolve();
    } catch (e) {
      w.reject(e);
    } finally {
      msg.release?.();
    }
  }
}
