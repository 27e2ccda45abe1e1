// The optimizer factory: the optimizer a config names, over one slice of the flat arenas.
import type { Gpu } from '../gpu/device.ts';
import { AdamOptimizer } from './adam.ts';
import type { ArenaSlice, Optimizer, OptimizerConfig } from './optimizer.ts';
import { SgdOptimizer } from './sgd.ts';

export async function createOptimizer(gpu: Gpu, config: OptimizerConfig, slice: ArenaSlice): Promise<Optimizer> {
  switch (config.name) {
    case 'sgd':
      return SgdOptimizer.create(gpu, config, slice);
    case 'adam':
    case 'adamw':
      return AdamOptimizer.create(gpu, config, slice);
  }
}
