// The errors a collective can end with. Every message names this rank, the peer involved, the
// collective (op and sequence number) and the step, in the text itself: comlink re-creates thrown
// errors as plain Errors with only {name, message, stack}, so fields alone would be lost.

/**
 * Every collective, in the order whose index is its code where one is carried as a number (the shared
 * ring's records, the flight recorder's fingerprints).
 */
export const COLLECTIVE_OPS = [
  'allReduce',
  'reduceScatter',
  'allGather',
  'broadcast',
  'barrier',
  'allReduceScalars',
] as const;

/** Which collective a message or a wait belongs to. */
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];

/** Where in a collective a wait happened, for error messages. */
export interface WaitSite {
  readonly op: CollectiveOp;
  /** Collective sequence number (the same on every rank: collectives are called in the same order). */
  readonly coll: number;
  readonly step: number;
  readonly slice: number;
}

function site(s: WaitSite): string {
  return `${s.op} #${s.coll} step ${s.step} slice ${s.slice}`;
}

/** A receive (or a send waiting for buffer space) did not complete in time: the peer is dead, hung or far behind. */
export class CollectiveTimeoutError extends Error {
  override readonly name = 'CollectiveTimeoutError';
  constructor(
    readonly rank: number,
    readonly peer: number,
    readonly at: WaitSite,
    readonly timeoutMs: number,
    readonly waitingFor: 'data' | 'space' = 'data',
  ) {
    super(
      `rank ${rank}: timed out after ${timeoutMs} ms waiting for ${waitingFor === 'data' ? 'data from' : 'buffer space at'} ` +
        `rank ${peer} in ${site(at)}`,
    );
  }
}

/** The group was aborted: some rank failed (or reported a timeout) and every collective now rejects. */
export class PeerFailedError extends Error {
  override readonly name = 'PeerFailedError';
  constructor(
    /** The rank that sees this error. */
    readonly rank: number,
    /** The rank that failed (for a timeout: the rank that was waited for). */
    readonly failedRank: number,
    /** The rank that raised the alarm (equal to failedRank when a rank reports its own failure). */
    readonly reportedBy: number,
    readonly reason: string,
  ) {
    super(
      `rank ${rank}: collective aborted because rank ${failedRank} failed` +
        (reportedBy === failedRank ? '' : ` (reported by rank ${reportedBy})`) +
        `: ${reason}`,
    );
  }
}

/** Two ranks disagree about which collective comes next (different op or length at the same sequence number). */
export class CollectiveMismatchError extends Error {
  override readonly name = 'CollectiveMismatchError';
  constructor(
    readonly rank: number,
    readonly peer: number,
    readonly coll: number,
    readonly mine: string,
    readonly theirs: string,
  ) {
    super(`rank ${rank}: collective mismatch at #${coll}: this rank runs ${mine} but rank ${peer} sent ${theirs}`);
  }
}

/**
 * A collective on a 2-rank side link (DataParallel's device 0 with one replica) failed. The pair
 * numbers its ranks 0 and 1; `peer` is the global rank of the other side, the one to blame.
 */
export class PairLinkError extends Error {
  override readonly name = 'PairLinkError';
  constructor(
    readonly peer: number,
    replica: number,
    cause: unknown,
  ) {
    super(
      `${reasonOf(cause)} (DataParallel link with rank ${peer}; on that link rank 0 is device 0 and rank 1 is rank ${replica})`,
      { cause },
    );
  }
}

/** Text of any thrown value, for abort reasons. */
export function reasonOf(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e));
}
