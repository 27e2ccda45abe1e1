// The link: everything one rank needs to talk to its ring neighbours. It sends Float32Array
// messages to rank+1 and receives them from rank-1, each tagged (collective sequence number, step,
// slice) so that messages of different collectives never mix, each receive with a deadline, and a
// poison message that aborts the whole group. Two transports implement it: port-link.ts over
// MessagePorts (transferred ArrayBuffers; works everywhere) and shared-link.ts over
// SharedArrayBuffer rings with Atomics (no message per slice; needs a cross-origin-isolated page).
// This file holds the interface, the event and option types, and the ring wiring helper.
import type { CollectiveOp } from './errors.ts';
import type { RingPhase } from './ring-schedule.ts';
import { DEFAULT_RING_BYTES, sharedRingBuffer, sharedRingSupported } from './shared-ring.ts';

export type { CollectiveOp } from './errors.ts';

/** Identity of one collective call, carried by each of its messages and checked by the receiver. */
export interface Fingerprint {
  readonly op: CollectiveOp;
  /** Sequence number: the k-th collective this rank started (all ranks call collectives in the same order). */
  readonly coll: number;
  /** Total element count of the collective (a mismatch between ranks is an error). */
  readonly n: number;
}

/** Position of one message inside its collective. */
export interface MessageKey {
  readonly step: number;
  readonly slice: number;
}

/**
 * One chunk moving along the ring, for the teaching page's ring view. The sender reports `kind:
 * 'send'` when it posts the first slice of a chunk, the receiver `kind: 'recv'` when the last slice
 * has arrived and been reduced or copied. `t` is `performance.timeOrigin + performance.now()` (ms),
 * so events from different workers share one clock.
 */
export interface TransferEvent {
  readonly kind: 'send' | 'recv';
  readonly op: CollectiveOp;
  readonly coll: number;
  readonly phase: RingPhase | 'broadcast';
  readonly step: number;
  readonly from: number;
  readonly to: number;
  /** Chunk index (ring collectives) or slice index (broadcast). */
  readonly chunk: number;
  readonly bytes: number;
  readonly t: number;
}

/** Receives transfer events; must not throw (a throw fails the collective on this rank and aborts the group). */
export type TransferObserver = (event: TransferEvent) => void;

/** Options of a link. */
export interface LinkOptions {
  readonly rank: number;
  readonly world: number;
  /** Deadline of every receive (and of every wait for ring space), ms. Default 120 000. */
  readonly timeoutMs?: number;
  readonly observer?: TransferObserver;
}

/** Default receive deadline: long enough for a slow rank's first-step shader compilation on SwiftShader. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Largest message, in float32 elements: 256 Ki elements = 1 MiB. The collectives cut chunks into
 * slices of at most this size, so one message (a pooled port buffer) never exceeds
 * 1 MiB whatever the tensor. For SimpleCNN's 2.18 MB gradient a chunk is at most 1.09 MB, so a ring
 * step is one or two messages. bench/allreduce.mjs's slice sweep (W = 4, 2 vCPUs): 64 KiB slices
 * were slower (more wake-ups), 4 MiB slices were faster only for 16 MiB buffers on oversubscribed
 * cores; 1 MiB keeps message memory bounded at little cost.
 */
export const DEFAULT_SLICE_ELEMS = 256 * 1024;

/**
 * How a link moves its bytes: `shared`, SharedArrayBuffer rings (shared-link.ts); `message`,
 * MessagePort messages (port-link.ts). The collectives' results are the same bits on both.
 */
export type Transport = 'shared' | 'message';

/** What a rank uses to talk to its ring neighbours. Collectives are written against this only. */
export interface Link {
  readonly transport: Transport;
  readonly rank: number;
  readonly world: number;
  /** (rank + 1) mod world: where `send` goes. */
  readonly next: number;
  /** (rank - 1 + world) mod world: where `recv` comes from. */
  readonly prev: number;
  readonly timeoutMs: number;
  /** Largest message `send` accepts, in elements. */
  readonly maxMessageElems: number;
  /**
   * Host memory this rank holds for communication now, in bytes (for the memory view's
   * "communication buffers" category): the port link's pooled buffers.
   */
  readonly stagingBytes: number;
  /** Why the group was aborted, or undefined while it is healthy. */
  readonly failure: Error | undefined;
  /** Starts the next collective: returns its fingerprint (sequence number, op, length). */
  beginCollective(op: CollectiveOp, n: number): Fingerprint;
  /** Sends `data` (copied; the caller keeps it) to `next`. Resolves once the message is posted. */
  send(fp: Fingerprint, key: MessageKey, data: Float32Array): Promise<void>;
  /**
   * Waits for the message (fp, key) from `prev` and hands it to `sink`, which must not keep the
   * view (the link reuses the buffer afterwards). Rejects with
   * CollectiveTimeoutError after `timeoutMs`, or PeerFailedError once the group is aborted.
   */
  recv(fp: Fingerprint, key: MessageKey, sink: (data: Float32Array) => void): Promise<void>;
  /** Reports a transfer to the observer, if any. */
  observe(event: TransferEvent): void;
  /** Aborts the group: every pending and later receive here and on every other rank rejects, naming this rank and the reason. */
  abort(reason: unknown): void;
  /** Detaches from the ports and closes them. Pending receives reject. */
  close(): void;
}

/**
 * What one rank needs: `next` sends to rank+1, `prev` receives from rank-1. With the shared
 * transport, `shared.out` is the ring this rank writes for rank+1 and `shared.in` the one rank-1
 * writes for it; the ports then carry only the abort and tell a rank when a neighbour is gone.
 */
export interface RingPorts {
  readonly next: MessagePort;
  readonly prev: MessagePort;
  readonly shared?: { readonly out: SharedArrayBuffer; readonly in: SharedArrayBuffer };
}

/**
 * Makes the W MessageChannels of a ring (and, for the shared transport, its W shared rings of
 * `ringBytes` each). The shared transport needs SharedArrayBuffer and Atomics.waitAsync (Node; a
 * cross-origin-isolated page): where they are missing, asking for it gives the message ring
 * (the links then report `message`).: channel r joins rank r (its `next`) to rank r+1 (its `prev`). The coordinator
 * transfers `ports[r].next` and `ports[r].prev` to worker r (shared buffers are shared, not
 * transferred). For W = 1 the single channel loops back to rank 0 (the collectives send nothing then).
 */
export function createRingPorts(
  world: number,
  transport: Transport = 'message',
  ringBytes = DEFAULT_RING_BYTES,
): RingPorts[] {
  if (!Number.isInteger(world) || world < 1) throw new RangeError(`world size must be an integer >= 1, got ${world}`);
  const channels = Array.from({ length: world }, () => new MessageChannel());
  const rings = transport === 'shared' && sharedRingSupported() ? channels.map(() => sharedRingBuffer(ringBytes)) : [];
  return channels.map((ch, r) => {
    const from = channels[(r - 1 + world) % world];
    if (from === undefined) throw new Error('unreachable');
    const out = rings[r];
    const inn = rings[(r - 1 + world) % world];
    return { next: ch.port1, prev: from.port2, ...(out && inn ? { shared: { out, in: inn } } : {}) };
  });
}

/** Monotonic wall-clock time in ms shared across workers (see TransferEvent.t). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
