// Browser module worker of one rank: its own WebGPU device (navigator.gpu inside the worker) and
// the IndexedDB dataset store.
import { expose } from 'comlink';
import { IdbDatasetStore } from '../src/data/store-idb.ts';
import { createRankApi } from '../src/runtime/rank.ts';

expose(
  createRankApi({
    async gpu() {
      if (!('gpu' in navigator))
        throw new Error('this worker has no navigator.gpu: WebGPU is not available in this browser');
      return navigator.gpu;
    },
    async openStore(spec) {
      if (spec.kind !== 'idb') throw new Error(`a browser rank reads datasets from IndexedDB, not '${spec.kind}'`);
      return new IdbDatasetStore();
    },
    exit() {
      self.close();
    },
  }),
);
