// A rank's process groups: the ring, and DataParallel's pair links with device 0 or each replica.
// Their chunk transfers feed the rank's counters, the ring view's events and the timeline; every
// collective's flight-recorder record goes into the timeline too (inside its comm span); with
// debugCollectives every group compares fingerprints before each collective.
import type { TransferEvent } from '../comm/link.ts';
import type { CollectiveRecord } from '../comm/flight-recorder.ts';
import { createProcessGroup, type ProcessGroup } from '../comm/process-group.ts';
import type { Tracer } from '../trace/tracer.ts';
import type { RankInit } from './protocol.ts';

export interface RankGroups {
  readonly pg: ProcessGroup;
  readonly pairs: Map<number, ProcessGroup>;
}

export function createRankGroups(
  init: RankInit,
  tracer: Tracer,
  counters: { sent: number },
  transfers: TransferEvent[],
): RankGroups {
  const { rank, world, config } = init;
  const observer = (e: TransferEvent) => {
    if (e.kind === 'send') counters.sent += e.bytes;
    if (init.recordTransfers) transfers.push(e);
    tracer.transfer(e);
  };
  const timeoutMs = config.stepTimeoutMs;
  const debug = init.debugCollectives ?? false;
  const onRecord = (r: CollectiveRecord) =>
    tracer.add(`${r.op} #${r.seq}`, 'comm', r.start, r.end ?? r.start, {
      seq: r.seq,
      op: r.op,
      bucket: r.bucket ?? 'none',
      dtype: r.dtype,
      bytes: r.bytes,
      step: r.step,
    });
  const pg = createProcessGroup({ rank, world, timeoutMs, observer }, init.ring, { debug, onRecord });
  const pairs = init.pairs.map(({ peer, ports }) => {
    const pairRank = rank === 0 ? 0 : 1;
    const mapRank = (r: number) => (r === 0 ? 0 : Math.max(rank, peer));
    const pairObserver = (e: TransferEvent) => observer({ ...e, from: mapRank(e.from), to: mapRank(e.to) });
    const opts = { rank: pairRank, world: 2, timeoutMs, observer: pairObserver };
    return [peer, createProcessGroup(opts, ports, { debug, name: `pair with rank ${peer}`, onRecord })] as const;
  });
  return { pg, pairs: new Map(pairs) };
}
