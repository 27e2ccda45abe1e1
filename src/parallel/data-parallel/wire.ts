// DataParallel's point-to-point traffic between device 0 and one replica, over their 2-rank group
// (device 0 is pair-rank 0, the replica pair-rank 1): a broadcast from one side is a send to the
// other. Batches travel as float values (pixel bytes as exact integers 0..255, never
// reinterpreted as float bits, which could be NaN patterns) with their labels.
import type { Batch } from '../../data/batch.ts';
import { PairLinkError } from '../../comm/errors.ts';
import type { ProcessGroup } from '../../comm/process-group.ts';

/**
 * A pair's collectives number its ranks 0 and 1: errors become a PairLinkError naming, with
 * global ranks, the partner this side was talking to (the coordinator blames it).
 */
async function labelled<T>(atRoot: boolean, replica: number, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (e) {
    throw new PairLinkError(atRoot ? replica : 0, replica, e);
  }
}

/** Sends `data` to the other side of the pair; `fromRoot`: this side is device 0; `replica`: the replica's rank. */
export async function pairSend(
  pg: ProcessGroup,
  data: Float32Array,
  fromRoot: boolean,
  replica: number,
): Promise<void> {
  await labelled(fromRoot, replica, () => pg.broadcast(data, fromRoot ? 0 : 1));
}

/** Receives `n` floats from the other side of the pair. */
export async function pairRecv(pg: ProcessGroup, n: number, atRoot: boolean, replica: number): Promise<Float32Array> {
  const out = new Float32Array(n);
  await labelled(atRoot, replica, () => pg.broadcast(out, atRoot ? 1 : 0));
  return out;
}

/** Floats in a batch header: [count, kind, more]. */
export const HEADER = 3;

/**
 * [count, kind, more] then [labels..., pixels or floats...]: kind 0 = uint8 pixels, 1 = float
 * input; more = 1 when another micro-batch of the same optimizer step follows (accumulation).
 */
export function encodeBatch(
  b: Batch,
  start: number,
  count: number,
  more = false,
): { header: Float32Array; body: Float32Array } {
  const per = ('images' in b ? b.images.length : b.x.length) / b.labels.length;
  const body = new Float32Array(count + count * per);
  for (let i = 0; i < count; i++) body[i] = b.labels[start + i] ?? 0;
  if ('images' in b) {
    const src = b.images.subarray(start * per, (start + count) * per);
    for (let i = 0; i < src.length; i++) body[count + i] = src[i] ?? 0;
  } else {
    body.set(b.x.subarray(start * per, (start + count) * per), count);
  }
  return { header: Float32Array.of(count, 'images' in b ? 0 : 1, more ? 1 : 0), body };
}

export function decodeBatch(header: Float32Array, body: Float32Array): Batch {
  const count = header[0] ?? 0;
  const labels = Int32Array.from(body.subarray(0, count));
  const pixels = body.subarray(count);
  return header[1] === 0 ? { images: Uint8Array.from(pixels), labels } : { x: pixels.slice(), labels };
}
