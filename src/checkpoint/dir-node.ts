// Checkpoints in a directory (Node): ROOT/step-N/{model.safetensors, optimizer.safetensors,
// trainer.json}. A checkpoint is written whole into ROOT/.step-N.tmp-PID-K (each file fsynced, then
// the directory), renamed to step-N in one step and ROOT fsynced; only then are the oldest beyond
// `keep` removed, each first renamed out of the step-N names (.step-N.old-PID-K) and then deleted,
// so that a step-N directory is always a whole checkpoint, whenever the process is killed. A crash
// or a full disk while writing leaves the previous checkpoints as they were and removes the partial
// one; the error names the path and the cause. The next run into ROOT (dir-lock-node.ts) removes
// what a killed one left.
import { open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FileTooLargeError, readRegularFile } from '../data/file-node.ts';
import { MAX_JSON_BYTES } from '../input/json.ts';
import { ensureDirectory } from '../input/path-node.ts';
import { syncDir, writeFailure } from './write-file-node.ts';
import { CHECKPOINT_FILES, CheckpointError, readTrainerJson, type CheckpointBytes } from './checkpoint.ts';

let counter = 0;

/** Writing a checkpoint failed: nothing new is at `path`, earlier checkpoints are unchanged. */
export class CheckpointWriteError extends Error {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    const [why, hint] = writeFailure(code, cause);
    super(`cannot write checkpoint ${path}: ${why}${hint}; the previous checkpoints are unchanged`, { cause });
    this.name = 'CheckpointWriteError';
  }
}

const STEP_DIR = /^step-(\d+)$/;

/** The checkpoints under `root`, oldest first: [global step, directory]. */
export async function listCheckpoints(root: string): Promise<[number, string][]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return [];
    throw e;
  }
  return names
    .map((n) => [Number(STEP_DIR.exec(n)?.[1] ?? NaN), join(root, n)] as [number, string])
    .filter(([n]) => Number.isInteger(n))
    .sort((a, b) => a[0] - b[0]);
}

/** Writes the checkpoint of global step `step` as ROOT/step-N, keeping the newest `keep` (0: all). */
export async function writeCheckpointDir(
  root: string,
  step: number,
  files: CheckpointBytes,
  keep: number,
): Promise<string> {
  const final = join(root, `step-${step}`);
  const tmp = join(root, `.step-${step}.tmp-${process.pid}-${++counter}`);
  try {
    await ensureDirectory(root, 'checkpoint directory');
    await ensureDirectory(tmp, 'checkpoint directory');
    for (const name of CHECKPOINT_FILES) {
      const fh = await open(join(tmp, name), 'wx', 0o644);
      try {
        await fh.writeFile(files[name]);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    await syncDir(tmp);
    // The same step written again (a run restarted from an earlier checkpoint): replace it.
    await retire(root, final, step);
    await rename(tmp, final);
    await syncDir(root);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw new CheckpointWriteError(final, (e as { code?: string } | null)?.code, e);
  }
  if (keep > 0) {
    const all = await listCheckpoints(root);
    for (const [n, dir] of all.slice(0, Math.max(0, all.length - keep))) await retire(root, dir, n);
  }
  return final;
}

/** Removes the checkpoint `dir` (step `step` under `root`): renamed out of the step-N names in one step, then deleted. */
async function retire(root: string, dir: string, step: number): Promise<void> {
  const old = join(root, `.step-${step}.old-${process.pid}-${++counter}`);
  try {
    await rename(dir, old);
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return;
    throw e;
  }
  await syncDir(root);
  await rm(old, { recursive: true, force: true });
}

/** The checkpoint directory `path` names: a checkpoint itself, or a root (its newest checkpoint). */
export async function resolveCheckpointDir(path: string): Promise<string> {
  const s = await stat(path).catch((e: unknown) => {
    throw new CheckpointError(path, `cannot read it (${(e as Error).message})`);
  });
  if (!s.isDirectory()) throw new CheckpointError(path, 'is not a directory (a checkpoint is a directory step-N)');
  const own = await stat(join(path, 'trainer.json')).catch(() => null);
  if (own) return path;
  const all = await listCheckpoints(path);
  const last = all.at(-1);
  if (!last) throw new CheckpointError(path, 'holds no checkpoint (no trainer.json, no step-N directory)');
  return last[1];
}

/**
 * The three files of the checkpoint in `dir`. trainer.json is read first (at most MAX_JSON_BYTES)
 * and checked; each tensor file's size is then checked against the byte count it records before
 * the file is read, so a huge or sparse file is refused without reading it.
 */
export async function readCheckpointDir(dir: string): Promise<CheckpointBytes> {
  const read = async (name: (typeof CHECKPOINT_FILES)[number], maxBytes: number) => {
    try {
      return await readRegularFile(join(dir, name), maxBytes);
    } catch (e) {
      if (e instanceof FileTooLargeError)
        throw new CheckpointError(
          join(dir, name),
          `${e.bytes} bytes, ${name === 'trainer.json' ? `more than a trainer.json has` : `trainer.json says ${maxBytes}`}`,
        );
      throw new CheckpointError(join(dir, name), `cannot read it (${(e as Error).message})`);
    }
  };
  const trainer = await read('trainer.json', MAX_JSON_BYTES);
  const { files } = readTrainerJson(trainer, join(dir, 'trainer.json'));
  return {
    'model.safetensors': await read('model.safetensors', files['model.safetensors'].bytes),
    'optimizer.safetensors': await read('optimizer.safetensors', files['optimizer.safetensors'].bytes),
    'trainer.json': trainer,
  };
}
