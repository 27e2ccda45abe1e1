// The workers of a run, one per rank, and the one way the coordinator calls them: every rank at
// once, the first failure winning. A failure is a worker that exits, throws (its error names the
// rank to blame and how, failure.ts), or does not answer in time; every rank is then told to abort,
// so nothing continues on half-reduced gradients.
import type { Remote } from 'comlink';
import { reasonOf } from '../comm/errors.ts';
import { failureReport } from '../comm/flight-recorder.ts';
import { RankFailedError } from './events.ts';
import { hasFailure, type FailureKind } from './failure.ts';
import type { RankApi } from './protocol.ts';

export interface WorkerHandle {
  readonly api: Remote<RankApi>;
  /** Registers a callback for the worker dying (an uncaught error, an exit, a crash). */
  onExit(cb: (reason: string) => void): void;
  terminate(): void;
}

export type SpawnWorker = (rank: number) => WorkerHandle;

/** How long a failed run waits for each worker's flight recorder. */
const RECORDER_WAIT_MS = 2000;

export class WorkerGroup {
  private readonly exits: (string | null)[];
  /** Calls in flight that want to hear about a worker dying. */
  private readonly exitWaiters = new Set<(rank: number, reason: string) => void>();

  constructor(
    readonly workers: readonly WorkerHandle[],
    private readonly stepTimeoutMs: number,
  ) {
    this.exits = workers.map(() => null);
    workers.forEach((h, r) =>
      h.onExit((reason) => {
        this.exits[r] = reason;
        for (const w of this.exitWaiters) w(r, reason);
      }),
    );
  }

  /**
   * Calls every rank and waits for all of them; the first rank that fails (throws, exits, or does
   * not answer within the timeout) fails the call, after every rank has been told to abort. The
   * timeout is longer than the collectives' own, so a rank stuck in a collective reports (and
   * names) the peer it waited for first.
   */
  all<T>(
    what: string,
    call: (h: WorkerHandle, rank: number) => Promise<T>,
    timeoutMs = this.stepTimeoutMs + 10_000,
  ): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      const results: (T | undefined)[] = this.workers.map(() => undefined);
      const pending = new Set(this.workers.map((_, r) => r));
      let settled = false;
      let peerTimer: ReturnType<typeof setTimeout> | undefined;
      const onExit = (rank: number, reason: string) => fail(rank, 'exit', reason);
      const finish = () => {
        clearTimeout(timer);
        clearTimeout(peerTimer);
        this.exitWaiters.delete(onExit);
      };
      const fail = (rank: number, kind: FailureKind, cause: string) => {
        if (settled) return;
        settled = true;
        finish();
        // Every rank's flight recorder first (a worker answers its calls in order), then the abort.
        const recorders = this.recorders();
        for (const h of this.workers) void h.api.abort(`rank ${rank} failed: ${cause}`).catch(() => undefined);
        void recorders.then((collectives) => reject(new RankFailedError(rank, kind, what, cause, collectives)));
      };
      const timer = setTimeout(
        () => fail([...pending][0] ?? 0, 'timeout', `no answer within ${Math.round(timeoutMs / 1000)} s`),
        timeoutMs,
      );
      this.exitWaiters.add(onExit);
      this.workers.forEach((h, r) => {
        const gone = this.exits[r];
        if (gone) {
          fail(r, 'exit', gone);
          return;
        }
        call(h, r).then(
          (v) => {
            results[r] = v;
            pending.delete(r);
            if (pending.size === 0 && !settled) {
              settled = true;
              finish();
              resolve(results as T[]);
            }
          },
          (e: unknown) => {
            const msg = reasonOf(e);
            const f = hasFailure(e) ? e.failure : { rank: r, kind: 'throw' as const, symptom: false };
            // A peer's timeout or abort is a symptom; give the root cause a moment to arrive first.
            if (f.symptom) peerTimer ??= setTimeout(() => fail(f.rank, f.kind, msg), 1000);
            else fail(f.rank, f.kind, msg);
          },
        );
      });
    });
  }

  /**
   * Every rank's collective flight recorders and their report, from the workers that answer within
   * RECORDER_WAIT_MS (a worker that exited or does not answer has null); undefined when no rank
   * recorded a collective.
   */
  private async recorders(): Promise<RankFailedError['collectives']> {
    const states = await Promise.all(
      this.workers.map(async (h, r) => {
        if (this.exits[r]) return null;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<null>((res) => (timer = setTimeout(() => res(null), RECORDER_WAIT_MS)));
        return Promise.race([h.api.collectives().catch(() => null), late]).finally(() => clearTimeout(timer));
      }),
    );
    if (states.every((s) => !s || s.every((g) => g.entered === 0))) return undefined;
    return { states, report: failureReport(this.workers.length, states) };
  }

  /** Terminates every worker, after disposing them where they answer within 5 s. */
  async close(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise((r) => (timer = setTimeout(r, 5000)));
    const disposed = Promise.allSettled(this.workers.map((h) => h.api.dispose()));
    // cleared: a pending timer keeps Node's event loop (the CLI's process) alive 5 s after the run
    await Promise.race([disposed, deadline]).finally(() => clearTimeout(timer));
    for (const h of this.workers) h.terminate();
  }
}
