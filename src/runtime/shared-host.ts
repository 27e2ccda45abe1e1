// Several ranks in one worker (ranks sharing one device, in Node and in the browser): the first
// rank's spawn starts the worker, each rank's handle talks to its own port, and the worker ends
// when the last of its ranks' handles is terminated (a restart then starts a fresh one).
import type { Remote } from 'comlink';
import type { ExitNotice } from './exit-notice.ts';
import type { RankApi } from './protocol.ts';
import type { SpawnWorker, WorkerHandle } from './worker-group.ts';

/** A started worker holding a run's ranks: each rank's API and how its port closes, the worker's exit and end. */
export interface RankHost {
  readonly ranks: readonly { readonly api: Remote<RankApi>; close(): void }[];
  readonly exit: ExitNotice;
  end(): void;
}

/** A spawner whose `world` ranks live in the one worker `start` starts. */
export function sharedHostSpawner(world: number, start: () => RankHost): SpawnWorker {
  let host: { readonly worker: RankHost; alive: number } | null = null;
  return (rank): WorkerHandle => {
    const h = (host ??= { worker: start(), alive: world });
    const r = h.worker.ranks[rank];
    if (!r) throw new Error(`rank ${rank} of a run of ${world} sharing one device`);
    let ended = false;
    return {
      api: r.api,
      onExit(cb) {
        h.worker.exit.onExit(cb);
      },
      terminate() {
        if (ended) return;
        ended = true;
        r.close();
        if (--h.alive > 0) return;
        if (host === h) host = null;
        h.worker.exit.terminated();
        h.worker.end();
      },
    };
  };
}
