// `webddp train --resume DIR` (or --resume-from DIR): the checkpoint's run continues with its own configuration.
// Flags may change what does not alter the trajectory's definition: --workers (the sampler's
// shards, the global batch and the steps per epoch then change; mid-epoch, the checkpoint's sample
// ledger deals the epoch's remaining samples to the new ranks, each once), --epochs (a longer run:
// the schedule's total steps follow), --step-timeout
// and --check-every. Any other training flag that disagrees with the checkpoint is refused by name.
// The data must be the checkpoint's (its trainer.json's dataset section): without --data, the
// recorded dataset is taken from the store; a different dataset is refused naming both.
import { resolveCheckpointDir, readCheckpointDir } from '../checkpoint/dir-node.ts';
import { CheckpointError, readCheckpoint, type Snapshot } from '../checkpoint/checkpoint.ts';
import { checkDataset, describeDataset, storedDataset, type DatasetRecord } from '../checkpoint/dataset-record.ts';
import type { TrainConfig } from '../config.ts';
import { readManifest } from '../data/dataset.ts';
import { FileDatasetStore } from '../data/store-file-node.ts';
import { SYNTHETIC_DATASET } from '../data/synthetic.ts';
import { validateConfig } from '../parallel/index.ts';
import { UsageError, type CliIO } from './command.ts';
import { fromFlags, type TrainFlagValues } from './train-config.ts';
import { prepareData, type PreparedData } from './train-data.ts';

const MAY_CHANGE: readonly (keyof TrainConfig)[] = ['workers', 'epochs', 'stepTimeoutMs', 'checkEvery'];

/** The checkpoint at `path` (a checkpoint or a root: its newest) and the run's config. */
export async function loadResume(
  path: string,
  values: TrainFlagValues,
): Promise<{ dir: string; snapshot: Snapshot; config: TrainConfig; dataset: DatasetRecord | null }> {
  const dir = await resolveCheckpointDir(path);
  const files = await readCheckpointDir(dir);
  const { snapshot, dataset } = await readCheckpoint(files, dir);
  if (values['deepspeed-config'] !== undefined)
    throw new UsageError('--deepspeed-config with --resume: the checkpoint holds the whole configuration');
  const given = Object.entries(fromFlags(values)).filter(([, v]) => v !== undefined) as [keyof TrainConfig, unknown][];
  const conflicts = given
    .filter(([k, v]) => !MAY_CHANGE.includes(k) && JSON.stringify(v) !== JSON.stringify(snapshot.config[k]))
    .map(([k, v]) => `${k} ${JSON.stringify(v)} (the checkpoint has ${JSON.stringify(snapshot.config[k])})`);
  if (conflicts.length > 0)
    throw new UsageError(
      `--resume ${dir} continues the checkpoint's run; only --workers, --epochs, --step-timeout and ` +
        `--check-every may change, not: ${conflicts.join('; ')}`,
    );
  const v = validateConfig({
    ...snapshot.config,
    ...Object.fromEntries(given.filter(([k]) => MAY_CHANGE.includes(k))),
  });
  if (!v.ok) throw new UsageError(v.issues.map((i) => i.message).join('; '));
  const config = v.config;
  const p = snapshot.position;
  // Mid-epoch on another worker count: the checkpoint's sample ledger deals the epoch's remaining
  // samples to the new ranks (src/data/ledger.ts); a checkpoint from before ledgers cannot.
  if (config.workers !== snapshot.config.workers && p.step > 0 && !p.ledger)
    throw new CheckpointError(
      dir,
      `saved at step ${p.step} of epoch ${p.epoch} with ${snapshot.config.workers} workers and no sample ledger ` +
        `(written by an older webddp): a different worker count resumes it only from an epoch's end (step 0)`,
    );
  if (p.epoch >= config.epochs)
    throw new UsageError(`${dir} is at epoch ${p.epoch}: nothing left to train with --epochs ${config.epochs}`);
  return { dir, snapshot: { ...snapshot, config }, config, dataset };
}

/** How to give the data a checkpoint recorded, for messages. */
function dataHint(r: DatasetRecord | null): string {
  if (r === null) return '';
  if (r.kind === 'tensors') return 'it was trained on in-memory tensors (the library), which webddp train cannot give';
  switch (r.source.kind) {
    case 'synthetic':
      return 'give --data synthetic (or no --data)';
    case 'archive':
      return `give --data with the path of ${r.source.description}`;
    case 'url':
      return `give --data with the path of the archive downloaded from ${r.source.description}`;
    case 'files':
      return `give --data with the directory it was imported from (${r.source.description})`;
  }
}

/**
 * The data of a resumed run: `given` (--data) checked against the checkpoint's record, or without
 * --data the recorded dataset from the store (the built-in synthetic set is generated if absent).
 * A different dataset is refused naming both; a checkpoint without a record gets one warning line.
 */
export async function resumeData(
  dir: string,
  recorded: DatasetRecord | null,
  given: string | undefined,
  storeDir: string,
  io: CliIO,
  quiet: boolean,
): Promise<PreparedData & { readonly fromCheckpoint: boolean }> {
  const check = (p: PreparedData, hint = dataHint(recorded)) => {
    const warning = checkDataset(recorded, storedDataset(p.manifest), dir, hint);
    if (warning) io.err(`warning: ${warning}\n`);
    return p;
  };
  if (given !== undefined || recorded?.kind !== 'stored')
    return { ...check(await prepareData(given ?? 'synthetic', storeDir, io, quiet)), fromCheckpoint: false };
  let p: PreparedData;
  if (recorded.name === SYNTHETIC_DATASET && recorded.source.kind === 'synthetic')
    p = check(await prepareData('synthetic', storeDir, io, true));
  else {
    const manifest = await readManifest(await FileDatasetStore.open(storeDir), recorded.name);
    if (manifest === undefined)
      throw new UsageError(
        `${dir} was trained on ${describeDataset(recorded)}, which is not in the store ${storeDir}: ${dataHint(recorded)}`,
      );
    p = check(
      { data: { kind: 'file', dir: storeDir, dataset: recorded.name }, manifest },
      `the store ${storeDir} holds another version of '${recorded.name}'; ${dataHint(recorded)}`,
    );
  }
  if (!quiet) io.err(`data: the checkpoint's ${describeDataset(recorded)}, from ${storeDir} (no --data given)\n`);
  return { ...p, fromCheckpoint: true };
}
