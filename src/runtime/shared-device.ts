// Ranks of one worker sharing one GPUDevice (webddp train --colocate): each rank gets a view of the
// device (its own allocations, memory tracker and kernel cache; gpu/device.ts Gpu.view), so each
// keeps its own buffers and memory counters; float32 DDP sums the ranks' gradient buckets on the
// device (train/device-reduce.ts), every other mode and precision moves its state through the
// ring between the ranks as with a device each; the last rank to finish destroys the device.
// Which modes and precisions may share a device is the mode table's (placements).
import type { TrainConfig } from '../config.ts';
import { placedRuns, runsPlaced } from '../parallel/index.ts';
import { acquireDevice, type Gpu } from '../gpu/device.ts';
import { DeviceReduce } from '../train/device-reduce.ts';
import { RankBatch } from '../train/rank-batch.ts';

export interface SharedDevice {
  /** A view of the shared device for one rank. */
  view(label: string): Promise<Gpu>;
  readonly reduce: DeviceReduce;
  readonly batch: RankBatch;
  /** A rank is done with the device; the last one destroys it. */
  release(): Promise<void>;
}

/** The device `world` ranks of this worker share, acquired from `gpu` when the first rank asks. */
export function sharedDevice(gpu: () => Promise<GPU>, world: number): SharedDevice {
  let owner: Promise<Gpu> | null = null;
  let users = 0;
  const reduce = new DeviceReduce(world);
  const batch = new RankBatch(world, reduce);
  return {
    reduce,
    batch,
    async view(label) {
      users++;
      owner ??= (async () => acquireDevice(await gpu(), { label: 'shared device' }))();
      return (await owner).view(label);
    },
    async release() {
      users--;
      if (users > 0 || !owner) return;
      batch.destroy();
      reduce.destroy();
      await (await owner).dispose();
    },
  };
}

/** Throws unless `config` is a run ranks sharing a device can make. */
export function checkSharable(config: TrainConfig): void {
  if (!runsPlaced(config, 'shared-device'))
    throw new Error(
      `ranks sharing a device (--colocate) run ${placedRuns('shared-device')}, not ${config.mode}${config.fp16 ? ' with fp16' : config.bf16 ? ' with bf16' : ''}`,
    );
}
