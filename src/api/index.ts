// webddp as a library (Node): `import { check, train, parity, sampler, init, importDataset } from
// 'webddp'`. The functions the CLI runs, without its flags and output; see README "Library".
// This file is the bundle's entry (dist-cli/index.mjs): the rank worker's URL is taken here, next
// to it, so the ranks load dist-cli/rank-worker.mjs wherever the package is installed.
import type { CheckReport } from '../check/result.ts';
import { runCheck, type CheckOptions } from '../check/run.ts';
import { nodeCheckEnvironment } from '../cli/check-node.ts';
import { FileDatasetStore } from '../data/store-file-node.ts';
import { importFromPath } from '../data/import-node.ts';
import { importSynthetic } from '../data/synthetic.ts';
import type { ImportResult } from '../data/import-types.ts';
import { DistributedSampler } from '../data/sampler.ts';
import type { AdapterChoice } from '../gpu/device-node.ts';
import { initSimpleCnn } from '../nn/init.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { parityWith, type ParityResult } from './parity.ts';
import { trainWith, type TrainOptions, type TrainResult } from './train.ts';

export type { TrainConfig } from '../config.ts';
export type { TrainEvent } from '../runtime/events.ts';
export type { CheckReport, CheckRow, CheckGroup } from '../check/result.ts';
export type { CheckOptions } from '../check/run.ts';
export type { Baseline } from '../check/baseline.ts';
export type { ParityRow } from '../parity/tolerance.ts';
export type { AdapterChoice } from '../gpu/device-node.ts';
export type { ImportResult } from '../data/import-types.ts';
export type { TrainOptions, TrainResult, ParityResult };
export { parseBaseline, makeBaseline } from '../check/baseline.ts';
export { toJUnit } from '../check/junit.ts';
export { formatReport } from '../check/format.ts';
export { saveStateDict, loadStateDict } from '../checkpoint/state-dict.ts';
export { simpleCnnSpec } from '../nn/spec.ts';
export { DistributedSampler } from '../data/sampler.ts';
export { VERSION as version } from '../version.ts';

const rankWorkerUrl = new URL(['.', 'rank-worker.mjs'].join('/'), import.meta.url);
const silent = { out: () => {}, err: () => {} };

/** `webddp check` (Node, Dawn): kernels, PyTorch parity, DDP, learning and throughput on one adapter. */
export async function check(
  options: CheckOptions & { readonly adapter?: AdapterChoice; readonly device?: string } = {},
): Promise<CheckReport> {
  const env = await nodeCheckEnvironment({ rankWorkerUrl }, silent, options.adapter ?? 'auto', options.device);
  return runCheck(env, options);
}

/** `webddp train`: data-parallel training on worker threads; resolves with rank 0's final parameters. */
export function train(options: TrainOptions = {}): Promise<TrainResult> {
  return trainWith(rankWorkerUrl, options);
}

/** `webddp parity`: a PyTorch fixture's bytes replayed on WebGPU and compared tensor by tensor. */
export function parity(
  fixture: Uint8Array,
  options: { source?: string; adapter?: AdapterChoice } = {},
): Promise<ParityResult> {
  return parityWith(rankWorkerUrl, fixture, options.source, options.adapter);
}

/** `webddp sampler`: the indices torch.utils.data.DistributedSampler gives `rank` in `epoch`. */
export function sampler(o: {
  n: number;
  replicas: number;
  rank: number;
  seed?: number | bigint;
  epoch?: number;
  shuffle?: boolean;
  dropLast?: boolean;
}): number[] {
  const s = new DistributedSampler(o.n, {
    numReplicas: o.replicas,
    rank: o.rank,
    shuffle: o.shuffle ?? true,
    seed: BigInt(o.seed ?? 0),
    dropLast: o.dropLast ?? false,
  });
  s.setEpoch(o.epoch ?? 0);
  return [...s.indices()];
}

/** `webddp init`: SimpleCNN's parameters as torch.manual_seed(seed); SimpleCNN() makes them (flat, state_dict order). */
export function init(seed: number | bigint = 0, width = 1): Float32Array {
  return initSimpleCnn(simpleCnnSpec(width), seed);
}

/** The data import: 'synthetic', a cifar-10-binary.tar.gz or a directory of .bin files into a directory store. */
export async function importDataset(source: string, storeDir: string): Promise<ImportResult> {
  const store = await FileDatasetStore.open(storeDir);
  return source === 'synthetic' ? importSynthetic(store) : importFromPath(source, store, { name: 'cifar10' });
}
