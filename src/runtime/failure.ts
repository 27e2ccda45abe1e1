// Which rank failed and how, as fields: what the coordinator reads from an error a worker threw
// (the worker's side, tagging its errors, is failure-tag.ts), so it blames a rank without reading
// message text.

const FAILURE_KINDS = ['exit', 'throw', 'timeout', 'device-lost', 'link'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface RankFailure {
  /** The rank to blame. */
  readonly rank: number;
  readonly kind: FailureKind;
  /**
   * Seen by another rank (a peer's timeout or a group abort): the blamed rank's own report, with
   * the root cause, may still be on its way.
   */
  readonly symptom: boolean;
}

/** An Error carrying its RankFailure (what the coordinator receives from a worker). */
export type TaggedError = Error & { readonly failure: RankFailure };

export function hasFailure(e: unknown): e is TaggedError {
  if (typeof e !== 'object' || e === null || !('failure' in e)) return false;
  const f = e.failure;
  if (typeof f !== 'object' || f === null) return false;
  const { rank, kind, symptom } = f as Record<string, unknown>;
  return typeof rank === 'number' && FAILURE_KINDS.some((k) => k === kind) && typeof symptom === 'boolean';
}
