// Evaluation on the test split: each rank evaluates the test positions its mode gives it
// (ring modes: rank, rank + W, ...; DataParallel: device 0 alone), in batches. The coordinator
// sums the results.
import type { BatchSource } from '../data/source.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import type { Trainer } from '../train/trainer.ts';
import type { BatchSample, EvalResult, RankInit } from './protocol.ts';

/** What evaluates a test batch: the trainer, or a mode's runner that holds the parameters itself (ZeRO-3). */
export type Evaluator = Pick<Trainer, 'model' | 'evaluate'>;

export async function evaluateShard(
  trainer: Evaluator,
  source: BatchSource | null,
  init: RankInit,
): Promise<EvalResult> {
  const empty = { lossSum: 0, correct: 0, samples: 0 };
  if (!source || source.testSize === 0) return empty;
  const indices = PARALLEL_MODES[init.config.mode].evalIndices(init.rank, init.world, source.testSize);
  if (indices.length === 0) return empty;
  await source.loadTest(indices);
  const b = Math.min(trainer.model.maxBatch, init.config.batchSize);
  let lossSum = 0;
  let correct = 0;
  for (let start = 0; start < indices.length; start += b) {
    const count = Math.min(b, indices.length - start);
    const r = await trainer.evaluate(source.testBatch(start, count));
    lossSum += r.loss * count;
    correct += r.correct;
  }
  return { lossSum, correct, samples: indices.length };
}

/** Up to n images of the source's last training batch, with their labels and the model's predictions. */
export async function sampleBatch(
  ev: Evaluator,
  trainer: Trainer,
  source: BatchSource | null,
  n: number,
): Promise<BatchSample | null> {
  const b = source?.lastBatch;
  if (!b || !('images' in b)) return null;
  const k = Math.min(n, b.labels.length, trainer.model.maxBatch);
  if (k === 0) return null;
  const images = b.images.slice(0, k * 3072);
  const labels = b.labels.slice(0, k);
  await ev.evaluate({ images, labels });
  const logits = await trainer.readLogits(k);
  const predicted = Int32Array.from({ length: k }, (_, i) => {
    const row = logits.subarray(i * 10, i * 10 + 10);
    return row.indexOf(Math.max(...row));
  });
  return { images, labels, predicted };
}
