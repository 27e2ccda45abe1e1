// Node worker_thread entry of one rank (or, with --colocate, of every rank of the run, sharing one
// device): Dawn for WebGPU, a directory store for datasets, and the WEBDDP_TUNING environment
// variable as the kernel tuning where the run gives none.
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { FileDatasetStore } from '../src/data/store-file-node.ts';
import { createRankApi, type RankEnv } from '../src/runtime/rank.ts';
import { sharedDevice, type SharedDevice } from '../src/runtime/shared-device.ts';
import type { NodeRankData } from '../src/runtime/spawn-node.ts';
import { nodeGpu } from '../src/gpu/device-node.ts';

const data = workerData as NodeRankData;
const gpu = async () => (await nodeGpu(data.adapter, data.device)).gpu;
const env = (shared?: SharedDevice): RankEnv => ({
  gpu,
  async openStore(spec) {
    if (spec.kind !== 'file') throw new Error(`a Node rank reads datasets from a directory store, not '${spec.kind}'`);
    return FileDatasetStore.open(spec.dir, { reader: true });
  },
  exit(code) {
    process.exit(code);
  },
  tuning: process.env.WEBDDP_TUNING,
  ...(shared ? { shared } : {}),
});
if (data.ranks) {
  // --colocate: every rank of the run in this thread, one device between them
  const shared = sharedDevice(gpu, data.ranks.length);
  for (const port of data.ranks) expose(createRankApi(env(shared)), nodeEndpoint(port));
} else {
  if (!parentPort) throw new Error('node-rank.worker must run in a worker thread');
  expose(createRankApi(env()), nodeEndpoint(parentPort));
}
