// `webddp train --resume-from DIR`: the checkpoint's run continues with its own configuration.
// Flags may change what does not alter the trajectory's definition: --workers (where the
// checkpoint is at an epoch boundary: the sampler's shards, the global batch and the steps per
// epoch then change), --epochs (a longer run: the schedule's total steps follow), --step-timeout
// and --check-every. Any other training flag that disagrees with the checkpoint is refused by name.
import { resolveCheckpointDir, readCheckpointDir } from '../checkpoint/dir-node.ts';
import { CheckpointError, decodeCheckpoint, readTrainerJson, type Snapshot } from '../checkpoint/checkpoint.ts';
import type { TrainConfig } from '../config.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { validateConfig } from '../parallel/index.ts';
import { UsageError } from './command.ts';
import { fromFlags, type TrainFlagValues } from './train-config.ts';

const MAY_CHANGE: readonly (keyof TrainConfig)[] = ['workers', 'epochs', 'stepTimeoutMs', 'checkEvery'];

/** The checkpoint at `path` (a checkpoint or a root: its newest) and the run's config. */
export async function loadResume(
  path: string,
  values: TrainFlagValues,
): Promise<{ dir: string; snapshot: Snapshot; config: TrainConfig }> {
  const dir = await resolveCheckpointDir(path);
  const files = await readCheckpointDir(dir);
  const head = readTrainerJson(files['trainer.json'], `${dir}/trainer.json`);
  const snapshot = await decodeCheckpoint(files, simpleCnnSpec(head.config.width), dir);
  if (values['deepspeed-config'] !== undefined)
    throw new UsageError('--deepspeed-config with --resume-from: the checkpoint holds the whole configuration');
  const given = Object.entries(fromFlags(values)).filter(([, v]) => v !== undefined) as [keyof TrainConfig, unknown][];
  const conflicts = given
    .filter(([k, v]) => !MAY_CHANGE.includes(k) && JSON.stringify(v) !== JSON.stringify(snapshot.config[k]))
    .map(([k, v]) => `${k} ${JSON.stringify(v)} (the checkpoint has ${JSON.stringify(snapshot.config[k])})`);
  if (conflicts.length > 0)
    throw new UsageError(
      `--resume-from ${dir} continues the checkpoint's run; only --workers, --epochs, --step-timeout and ` +
        `--check-every may change, not: ${conflicts.join('; ')}`,
    );
  const v = validateConfig({
    ...snapshot.config,
    ...Object.fromEntries(given.filter(([k]) => MAY_CHANGE.includes(k))),
  });
  if (!v.ok) throw new UsageError(v.issues.map((i) => i.message).join('; '));
  const config = v.config;
  const p = snapshot.position;
  if (config.workers !== snapshot.config.workers && p.step > 0)
    throw new CheckpointError(
      dir,
      `saved at step ${p.step} of epoch ${p.epoch} with ${snapshot.config.workers} workers: a different worker ` +
        `count changes every rank's shard, so it resumes only from an epoch's end (a checkpoint with step 0)`,
    );
  if (p.epoch >= config.epochs)
    throw new UsageError(`${dir} is at epoch ${p.epoch}: nothing left to train with --epochs ${config.epochs}`);
  return { dir, snapshot: { ...snapshot, config }, config };
}
