// Browser module worker of every rank of a run sharing one WebGPU device ("workers share one
// device", as Node's --colocate): the page sends one MessagePort per rank, and each rank's API is
// exposed on its own port; the ranks take views of one device and DDP sums their buckets on it.
import { expose } from 'comlink';
import { createRankApi } from '../src/runtime/rank.ts';
import { sharedDevice } from '../src/runtime/shared-device.ts';
import type { ColocatedInit } from '../src/runtime/spawn-browser.ts';
import { browserRankEnv, workerGpu } from './browser-rank-env.ts';

self.addEventListener(
  'message',
  (e: MessageEvent<ColocatedInit>) => {
    const shared = sharedDevice(workerGpu, e.data.ranks.length);
    for (const port of e.data.ranks) expose(createRankApi(browserRankEnv(shared)), port);
  },
  { once: true },
);
