// A worker's side of failure.ts: it tags every error it throws with a RankFailure (failureOf), and
// comlink's error serialisation is extended to carry it (comlink otherwise keeps only name, message
// and stack). Kept apart from failure.ts so the coordinator's thread does not load the GPU's errors.
import { transferHandlers } from 'comlink';
import { CollectiveTimeoutError, PairLinkError, PeerFailedError } from '../comm/errors.ts';
import { DeviceLostError } from '../gpu/errors.ts';
import { hasFailure, type RankFailure, type TaggedError } from './failure.ts';

/** Who is to blame for `e`, thrown on rank `reporter`. */
function failureOf(e: unknown, reporter: number): RankFailure {
  if (e instanceof PairLinkError) return { rank: e.peer, kind: 'link', symptom: true };
  if (e instanceof CollectiveTimeoutError) return { rank: e.peer, kind: 'timeout', symptom: true };
  if (e instanceof PeerFailedError) return { rank: e.failedRank, kind: 'link', symptom: true };
  if (e instanceof DeviceLostError) return { rank: reporter, kind: 'device-lost', symptom: false };
  return { rank: reporter, kind: 'throw', symptom: false };
}

/** `e` as an Error with its failure attached (computed unless it already has one). */
function tagFailure(e: unknown, reporter: number): TaggedError {
  const err = e instanceof Error ? e : new Error(String(e));
  if (!hasFailure(err)) Object.assign(err, { failure: failureOf(err, reporter) });
  return err as TaggedError;
}

let installed = false;

/** Makes comlink serialise a thrown error's `failure` with it (call in the worker; idempotent). */
export function carryFailuresAcrossComlink(): void {
  if (installed) return;
  installed = true;
  const base = transferHandlers.get('throw');
  if (!base) return;
  transferHandlers.set('throw', {
    canHandle: (v): v is unknown => base.canHandle(v),
    serialize(thrown) {
      const value = (thrown as { value: unknown }).value;
      if (!(value instanceof Error)) return base.serialize(thrown);
      const { message, name, stack } = value;
      const failure = hasFailure(value) ? { ...value.failure } : undefined;
      return [{ isError: true, value: { message, name, stack, ...(failure ? { failure } : {}) } }, []];
    },
    deserialize: (v) => base.deserialize(v),
  });
}

/** `api` whose every method rejects with its error tagged with the rank to blame. */
export function taggingFailures<T extends object>(rank: () => number, api: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(api) as [string, (...a: unknown[]) => Promise<unknown>][]) {
    out[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        throw tagFailure(e, rank());
      }
    };
  }
  return out as T;
}
