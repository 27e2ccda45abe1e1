// Browser: a rank is a module Web Worker (workers/rank.worker.ts) with its own WebGPU device,
// wrapped with comlink. A worker that throws an uncaught error is reported at once; one that
// closes itself is noticed by its peers' collective timeouts (browsers fire no event for it).
import { wrap } from 'comlink';
import type { SpawnWorker, WorkerHandle } from './worker-group.ts';
import { ExitNotice } from './exit-notice.ts';
import type { RankApi } from './protocol.ts';

export function browserSpawner(): SpawnWorker {
  return (rank): WorkerHandle => {
    const w = new Worker(new URL('../../workers/rank.worker.ts', import.meta.url), {
      type: 'module',
      name: `webddp rank ${rank}`,
    });
    const exit = new ExitNotice();
    w.addEventListener('error', (e) => {
      e.preventDefault();
      exit.die(`worker error: ${e.message || 'the worker script failed to load or threw'}`);
    });
    w.addEventListener('messageerror', () => exit.die('worker sent a message that could not be deserialised'));
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
