// Module worker for the data harness: a rank's view of the data layer. Opens the IndexedDB store,
// loads a shard of the given indices and returns its labels and a hash of its images.
import { openDataset } from '../../../src/data/dataset.ts';
import { loadShard } from '../../../src/data/shard.ts';
import { IdbDatasetStore } from '../../../src/data/store-idb.ts';
import { outcome, sha256Of } from './outcome.ts';

interface Request {
  readonly name: string;
  readonly indices: readonly number[];
}

self.onmessage = async (ev: MessageEvent<Request>) => {
  const result = await outcome(async () => {
    const ds = await openDataset(new IdbDatasetStore(), ev.data.name);
    const shard = await loadShard(ds, 'train', Int32Array.from(ev.data.indices));
    return { labels: [...shard.labels], imagesSha: await sha256Of([shard.images]) };
  });
  self.postMessage(result);
};
