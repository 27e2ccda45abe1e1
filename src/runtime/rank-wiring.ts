// What each rank is sent at init: its ring links (MessageChannels, with shared-memory rings where
// asked), DataParallel's links from device 0 to each replica, and its RankInit (the config, the
// data where the mode loads it on that rank, rank 0's initial parameters, a resumed checkpoint's
// slice, tracing and fault options). The coordinator spawns the workers and sends each its part.
import { createRingPorts, type RingPorts } from '../comm/link.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import type { CoordinatorOptions } from './options.ts';
import type { RankInit } from './protocol.ts';
import { rankRestore } from './snapshot.ts';

/** Rank r's init and the ports it carries (to be transferred with it). */
export interface RankWiring {
  init(r: number): { readonly init: RankInit; readonly ports: MessagePort[] };
}

export function wireRanks(o: CoordinatorOptions): RankWiring {
  const W = o.config.workers;
  const ring = createRingPorts(W, o.transport);
  const pairs: { peer: number; ports: RingPorts }[][] = Array.from({ length: W }, () => []);
  const mode = PARALLEL_MODES[o.config.mode];
  if (mode.topology === 'star') {
    for (let r = 1; r < W; r++) {
      const [root, replica] = createRingPorts(2, o.transport);
      if (root && replica) {
        pairs[0]?.push({ peer: r, ports: root });
        pairs[r]?.push({ peer: 0, ports: replica });
      }
    }
  }
  const initialParams = o.resume?.params ?? o.initialParams;
  return {
    init(r) {
      const ports = [
        ring[r]?.next,
        ring[r]?.prev,
        ...(pairs[r] ?? []).flatMap((p) => [p.ports.next, p.ports.prev]),
      ].filter((p): p is MessagePort => p !== undefined);
      const init: RankInit = {
        rank: r,
        world: W,
        config: o.config,
        data: mode.loadsData(r) ? o.data : null,
        ring: ring[r] ?? { next: ports[0]!, prev: ports[1]! },
        pairs: pairs[r] ?? [],
        ...(r === 0 && initialParams ? { initialParams } : {}),
        recordTransfers: o.recordTransfers ?? false,
        ...(o.trace ? { trace: true } : {}),
        ...(o.debugCollectives ? { debugCollectives: true } : {}),
        ...(o.tuning ? { tuning: o.tuning } : {}),
        ...(o.fault?.rank === r ? { fault: { step: o.fault.step, kind: o.fault.kind } } : {}),
        ...(o.resume ? { restore: rankRestore(o.resume) } : {}),
      };
      return { init, ports };
    },
  };
}
