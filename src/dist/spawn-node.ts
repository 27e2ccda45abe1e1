// Node only: a rank is a worker_thread running the bundled rank worker (workers/node-rank.worker.ts
// -> dist-cli/rank-worker.mjs), with its own Dawn device, wrapped with comlink.
import { Worker } from 'node:worker_threads';
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { AdapterChoice } from '../gpu/device-node.ts';
import type { SpawnWorker, WorkerHandle } from './coordinator.ts';
import type { RankApi } from './protocol.ts';

export interface NodeRankData { readonly adapter: AdapterChoice; readonly device?: string }

/** Spawns ranks from `workerUrl`; rank r uses `devices[r % devices.length]` when devices are given. */
export function nodeSpawner(workerUrl: URL, adapter: AdapterChoice, devices: readonly string[] = []): SpawnWorker {
  return (rank): WorkerHandle => {
    const device = devices.length > 0 ? devices[rank % devices.length] : undefined;
    const data: NodeRankData = { adapter, ...(device ? { device } : {}) };
    const w = new Worker(workerUrl, { workerData: data });
    const callbacks: ((reason: string) => void)[] = [];
    let dead: string | null = null;
    const die = (reason: string) => {
      if (dead) return;
      dead = reason;
      for (const cb of callbacks) cb(reason);
    };
    w.on('error', (e) => die(`worker error: ${e.message}`));
    w.on('exit', (code) => die(`worker exited with code ${code}`));
    return {
      api: wrap<RankApi>(nodeEndpoint(w)),
      onExit(cb) { if (dead) cb(dead); else callbacks.push(cb); },
      terminate() { dead ??= 'terminated'; void w.terminate(); },
    };
  };
}
