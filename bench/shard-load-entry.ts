// What bench/shard-load.mjs bundles: the dataset store, import, sampler and shard loading of src/data.
export { SharedChunkReads } from '../src/data/chunk-reads.ts';
export { RECORD_BYTES } from '../src/data/cifar.ts';
export { openDataset } from '../src/data/dataset.ts';
export { importFiles } from '../src/data/import.ts';
export { DistributedSampler } from '../src/data/sampler.ts';
export { loadShard } from '../src/data/shard.ts';
export { FileDatasetStore } from '../src/data/store-file-node.ts';
export { bytesSource } from '../src/data/synthetic.ts';
