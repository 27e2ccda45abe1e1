// Browser: a rank is a module Web Worker (workers/rank.worker.ts) with its own WebGPU device,
// wrapped with comlink; or ("workers share one device", the twin of Node's colocatedSpawner) every
// rank of a run is one module Web Worker (workers/colocated.worker.ts) sharing one device, each
// rank's API on a MessagePort of its own. A worker that throws an uncaught error is reported at
// once; one that closes itself is noticed by its peers' collective timeouts (browsers fire no
// event for it).
import { wrap } from 'comlink';
import type { SpawnWorker, WorkerHandle } from './worker-group.ts';
import { ExitNotice } from './exit-notice.ts';
import type { RankApi } from './protocol.ts';
import { sharedHostSpawner } from './shared-host.ts';

/** The first message a colocated worker gets: one port per rank. */
export interface ColocatedInit {
  readonly ranks: readonly MessagePort[];
}

/** Reports a worker's load error or undeserialisable message as its exit. */
function watch(w: Worker, exit: ExitNotice): void {
  w.addEventListener('error', (e) => {
    e.preventDefault();
    exit.die(`worker error: ${e.message || 'the worker script failed to load or threw'}`);
  });
  w.addEventListener('messageerror', () => exit.die('worker sent a message that could not be deserialised'));
}

export function browserSpawner(): SpawnWorker {
  return (rank): WorkerHandle => {
    const w = new Worker(new URL('../../workers/rank.worker.ts', import.meta.url), {
      type: 'module',
      name: `webddp rank ${rank}`,
    });
    const exit = new ExitNotice();
    watch(w, exit);
    return {
      api: wrap<RankApi>(w),
      onExit(cb) {
        exit.onExit(cb);
      },
      terminate() {
        exit.terminated();
        w.terminate();
      },
    };
  };
}

/**
 * Spawns the `world` ranks of a run as one module worker sharing one device: the first call starts
 * the worker, each rank's handle talks to its own port; the worker ends when every rank's handle
 * is terminated (a restart then starts a fresh one).
 */
export function colocatedBrowserSpawner(world: number): SpawnWorker {
  return sharedHostSpawner(world, () => {
    const channels = Array.from({ length: world }, () => new MessageChannel());
    const worker = new Worker(new URL('../../workers/colocated.worker.ts', import.meta.url), {
      type: 'module',
      name: `webddp ranks 0-${world - 1} (one device)`,
    });
    const exit = new ExitNotice();
    watch(worker, exit);
    const ranks = channels.map((c) => c.port2);
    const init: ColocatedInit = { ranks };
    worker.postMessage(init, ranks);
    return {
      ranks: channels.map(({ port1 }) => ({ api: wrap<RankApi>(port1), close: () => port1.close() })),
      exit,
      end: () => worker.terminate(),
    };
  });
}
