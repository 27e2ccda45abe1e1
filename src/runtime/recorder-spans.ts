// A failed run's collective flight recorders as timeline spans (the trace file of `webddp train
// --trace`): each rank's recorded collectives on its comm lane, the one it was in when the run
// failed ending at the failure, named so. Only the steps from `fromStep` on: the steps before it
// completed, and their collectives reached the trace with their step's spans.
import type { RecorderState } from '../comm/flight-recorder.ts';
import { epochMs, type Span } from '../trace/tracer.ts';

/** `states[r]`: rank r's recorders (null: it did not answer). Index of the result = rank. */
export function recorderSpans(
  states: readonly (readonly RecorderState[] | null)[],
  fromStep: number,
  now = epochMs(),
): Span[][] {
  return states.map((groups) =>
    (groups ?? []).flatMap((g) =>
      g.records
        .filter((r) => r.step >= fromStep)
        .map((r) => ({
          name: `${r.op} #${r.seq}${r.end === null ? ' (in flight at the failure)' : ''}${g.group === 'ring' ? '' : ` (${g.group})`}`,
          lane: 'comm' as const,
          t: r.start,
          dur: (r.end ?? now) - r.start,
          args: {
            recorder: 'flight',
            seq: r.seq,
            op: r.op,
            bucket: r.bucket ?? 'none',
            dtype: r.dtype,
            bytes: r.bytes,
            step: r.step,
            ...(r.error ? { error: r.error } : {}),
          },
        })),
    ),
  );
}
