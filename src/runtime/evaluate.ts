// Evaluation on the test split: each rank takes positions rank, rank + W, ... of the test set (no
// padding, so every record counts once), in batches; DataParallel evaluates on device 0 alone.
// The coordinator sums the results.
import type { Trainer } from '../train/trainer.ts';
import type { EvalResult, RankInit } from './protocol.ts';
import { isDataParallel } from './rank-setup.ts';
import type { BatchSource } from '../data/source.ts';

export async function evaluateShard(trainer: Trainer, source: BatchSource | null, init: RankInit): Promise<EvalResult> {
  const empty = { lossSum: 0, correct: 0, samples: 0 };
  if (!source || source.testSize === 0) return empty;
  const dp = isDataParallel(init.config);
  if (dp && init.rank !== 0) return empty;
  const stride = dp ? 1 : init.world;
  const first = dp ? 0 : init.rank;
  const indices = Int32Array.from(
    { length: Math.max(0, Math.ceil((source.testSize - first) / stride)) },
    (_, i) => first + i * stride,
  );
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
