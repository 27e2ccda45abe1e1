// Node only: a rank is a worker_thread running the bundled rank worker (workers/node-rank.worker.ts
// -> dist-cli/rank-worker.mjs), with its own Dawn device, wrapped with comlink.
import { Worker } from 'node:worker_threads';
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { AdapterChoice } from '../gpu/device-node.ts';
import type { SpawnWorker, WorkerHandle } from './worker-group.ts';
import { ExitNotice } from './exit-notice.ts';
import type { RankApi } from './protocol.ts';

export interface NodeRankData {
  readonly adapter: AdapterChoice;
  readonly device?: string;
}

/** Spawns ranks from `workerUrl`; rank r uses `devices[r % devices.length]` when devices are given. */
export function nodeSpawner(workerUrl: URL, adapter: AdapterChoice, devices: readonly string[] = []): SpawnWorker {
  return (rank): WorkerHandle => {
    const device = devices.length > 0 ? devices[rank % devices.length] : undefined;
    const data: NodeRankData = { adapter, ...(device ? { device } : {}) };
    const w = new Worker(workerUrl, { workerData: data });
    const exit = new ExitNotice();
    w.on('error', (e) => exit.die(`worker error: ${e.message}`));
    w.on('exit', (code) => exit.die(`worker exited with code ${code}`));
    return {
      api: wrap<RankApi>(nodeEndpoint(w)),
      onExit(cb) {
        exit.onExit(cb);
      },
      terminate() {
        exit.terminated();
        void w.terminate();
      },
    };
  };
}
