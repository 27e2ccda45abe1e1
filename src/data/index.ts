// The data layer's public API for browsers, workers and Node. Node-only parts are imported from
// their own files: import-node.ts (importFromPath) and store-file-node.ts (FileDatasetStore).
export * from './errors.ts';
export * from './cifar.ts';
export type { ChunkInfo, DatasetManifest, DatasetSource, DatasetStore, Split, SplitInfo } from './store.ts';
export { SPLITS } from './store.ts';
export { ChunkIndex, DATASET_NAME, computeVersion, parseManifest } from './manifest.ts';
export { Dataset, deleteDataset, listDatasets, openDataset, readManifest } from './dataset.ts';
export { DatasetWriter } from './dataset-writer.ts';
export { IdbDatasetStore, IDB_DATABASE, IDB_OBJECT_STORE } from './store-idb.ts';
export type { ByteSource, ImportOptions, ImportPhase, ImportProgress, ImportResult } from './import-types.ts';
export { DEFAULT_DATASET, DEFAULT_MAX_DECOMPRESSED } from './import-types.ts';
export { importArchive, importFiles, importFromUrl } from './import.ts';
export { DEFAULT_RECORDS_PER_CHUNK } from './records.ts';
export {
  SYNTHETIC_CLASSES,
  SYNTHETIC_DATASET,
  SYNTHETIC_DEFAULTS,
  bytesSource,
  generateRecords,
  generateSynthetic,
  importSynthetic,
  syntheticSources,
  type SyntheticOptions,
} from './synthetic.ts';
export { loadShard, shardSize, type LoadShardOptions, type Shard } from './shard.ts';
export { batch, batchPositions, type Batch } from './batch.ts';
export { Augmenter, augmentSeed, cropFlip, type AugmentDraw, type AugmentOptions } from './augment.ts';
export { CIFAR10_MEAN, CIFAR10_STD, normalize } from './normalize.ts';
export { sha256Hex } from './hash.ts';
