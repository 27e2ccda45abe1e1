// Broadcast along the ring, pipelined: the root cuts the buffer into slices and sends them to
// root+1; every other rank copies each slice into place as it arrives and forwards it at once to
// its next rank (except the last rank of the chain, root-1). Time ~ (W - 2 + slices) slice hops
// instead of (W - 1) whole-buffer hops. Used for DDP's start-up parameter sync from rank 0.
import type { Link } from './link.ts';
import { nowMs } from './link.ts';
import { checkRank, guarded, sliceElemsFor } from './ring-step.ts';
import type { CollectiveOptions } from './ring-step.ts';
import { CollectiveMismatchError } from './errors.ts';
import { mod, sliceRanges } from './ring-schedule.ts';

/**
 * In-place broadcast from `root`: afterwards `data` on every rank equals `data` on the root
 * (same bits). Every rank calls it with the same root and length. Message step = the sender's
 * distance from the root; observer events are per slice (`chunk` = slice index).
 */
export async function broadcast(
  data: Float32Array,
  root: number,
  rank: number,
  world: number,
  link: Link,
  opts?: CollectiveOptions,
): Promise<Float32Array> {
  return guarded(link, async () => {
    checkRank(link, rank, world);
    if (!Number.isInteger(root) || root < 0 || root >= world)
      throw new RangeError(`broadcast root ${root} is outside [0, ${world})`);
    const fp = link.beginCollective('broadcast', data.length);
    const slices = sliceRanges({ start: 0, end: data.length }, sliceElemsFor(link, opts));
    if (world === 1) return data;
    const pos = mod(rank - root, world);
    const forwards = pos < world - 1;
    const event = (kind: 'send' | 'recv', step: number, k: number, bytes: number): void =>
      link.observe({
        kind,
        op: 'broadcast',
        coll: fp.coll,
        phase: 'broadcast',
        step,
        from: kind === 'send' ? rank : link.prev,
        to: kind === 'send' ? link.next : rank,
        chunk: k,
        bytes,
        t: nowMs(),
      });
    const forward = (k: number, view: Float32Array): Promise<void> => {
      event('send', pos, k, view.byteLength);
      return link.send(fp, { step: pos, slice: k }, view);
    };
    if (pos === 0) {
      await Promise.all(slices.map((s, k) => forward(k, data.subarray(s.start, s.end))));
      return data;
    }
    const work = slices.map(async (s, k) => {
      await link.recv(fp, { step: pos - 1, slice: k }, (v) => {
        if (v.length !== s.end - s.start)
          throw new CollectiveMismatchError(
            rank,
            link.prev,
            fp.coll,
            `broadcast slice ${k} of ${s.end - s.start}`,
            `${v.length} elements`,
          );
        data.set(v, s.start);
      });
      event('recv', pos - 1, k, 4 * (s.end - s.start));
      if (forwards) await forward(k, data.subarray(s.start, s.end));
    });
    await Promise.all(work);
    return data;
  });
}
