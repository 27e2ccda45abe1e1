// Node only: a rank is a worker_thread running the bundled rank worker (workers/node-rank.worker.ts
// -> dist-cli/rank-worker.mjs), with its own Dawn device, wrapped with comlink; or (--colocate)
// all ranks are one worker_thread sharing one device, each rank's API on a MessagePort of its own.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { workerAdapterChoice, type AdapterChoice } from '../gpu/device-node.ts';
import type { SpawnWorker, WorkerHandle } from './worker-group.ts';
import { ExitNotice } from './exit-notice.ts';
import type { RankApi } from './protocol.ts';
import { sharedHostSpawner } from './shared-host.ts';

export interface NodeRankData {
  readonly adapter: AdapterChoice;
  readonly device?: string;
  /** Colocated: one port per rank of this worker (all share one device); absent: one rank, on parentPort. */
  readonly ranks?: readonly MessagePort[];
}

/** Spawns ranks from `workerUrl`; rank r uses `devices[r % devices.length]` when devices are given. */
export function nodeSpawner(workerUrl: URL, choice: AdapterChoice, devices: readonly string[] = []): SpawnWorker {
  const adapter = workerAdapterChoice(choice);
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

/**
 * Spawns the `world` ranks of a run as one worker thread sharing one device (webddp train
 * --colocate): the first call starts the worker, each rank's handle talks to its own port; the
 * worker ends when every rank's handle is terminated (a restart then starts a fresh one).
 */
export function colocatedSpawner(workerUrl: URL, choice: AdapterChoice, world: number): SpawnWorker {
  const adapter = workerAdapterChoice(choice);
  return sharedHostSpawner(world, () => {
    const channels = Array.from({ length: world }, () => new MessageChannel());
    const ranks = channels.map((c) => c.port2);
    const data: NodeRankData = { adapter, ranks };
    const worker = new Worker(workerUrl, { workerData: data, transferList: ranks });
    const exit = new ExitNotice();
    worker.on('error', (e) => exit.die(`worker error: ${e.message}`));
    worker.on('exit', (code) => exit.die(`worker exited with code ${code}`));
    return {
      ranks: channels.map(({ port1 }) => ({ api: wrap<RankApi>(nodeEndpoint(port1)), close: () => port1.close() })),
      exit,
      end: () => void worker.terminate(),
    };
  });
}
