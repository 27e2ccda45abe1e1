// What a rank needs from a browser module worker: navigator.gpu inside the worker, the IndexedDB
// dataset store, and (for ranks sharing one device) their shared device. Used by rank.worker.ts
// (one rank, its own device) and colocated.worker.ts (every rank of a run, one device).
import { IdbDatasetStore } from '../src/data/store-idb.ts';
import type { RankEnv } from '../src/runtime/rank.ts';
import type { SharedDevice } from '../src/runtime/shared-device.ts';

export async function workerGpu(): Promise<GPU> {
  if (!('gpu' in navigator))
    throw new Error('this worker has no navigator.gpu: WebGPU is not available in this browser');
  return navigator.gpu;
}

export function browserRankEnv(shared?: SharedDevice): RankEnv {
  return {
    gpu: workerGpu,
    async openStore(spec) {
      if (spec.kind !== 'idb') throw new Error(`a browser rank reads datasets from IndexedDB, not '${spec.kind}'`);
      return new IdbDatasetStore();
    },
    exit() {
      self.close();
    },
    ...(shared ? { shared } : {}),
  };
}
