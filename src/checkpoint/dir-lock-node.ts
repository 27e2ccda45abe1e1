// One run at a time in a checkpoint directory (Node): ROOT/.lock holds the writer's process id,
// host and start time. It is created complete or not at all (written to a temporary file, then
// hard-linked to .lock, which fails if one exists); a second run is refused naming the holder. A
// lock whose process is gone (same host, no such pid: a run killed with -9) is stale and taken
// over. Holding the lock, a run removes what killed runs left: `.step-N.tmp-*` (a checkpoint
// being written) and `.step-N.old-*` (one being replaced or removed), and says what it removed.
import { hostname } from 'node:os';
import { link, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../data/file-node.ts';
import { isJsonObject, parseJson } from '../input/json.ts';
import { ensureDirectory, PathError } from '../input/path-node.ts';
import { syncDir } from './write-file-node.ts';

const LOCK_FILE = '.lock';
/** What a killed run leaves in a checkpoint directory. */
const LEFTOVER = /^\.step-\d+\.(tmp|old)-\d+-\d+$|^\.lock\.tmp-\d+$/;

export interface CheckpointDirLock {
  readonly root: string;
  /** The leftovers of killed runs that were removed (names under root). */
  readonly removed: readonly string[];
  release(): Promise<void>;
}

interface LockInfo {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

const errno = (e: unknown) => (e as { code?: string } | null)?.code;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) === 'EPERM'; // exists, owned by someone else
  }
}

async function readLock(path: string): Promise<LockInfo | null> {
  const bytes = await readRegularFile(path, 4096).catch(() => null);
  if (!bytes) return null;
  const j = parseJson(new TextDecoder().decode(bytes));
  if (!j.ok || !isJsonObject(j.value)) return null;
  const { pid, host, started } = j.value;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || typeof host !== 'string') return null;
  return { pid, host, started: typeof started === 'string' ? started : '?' };
}

/**
 * Takes the checkpoint directory `root` (given as `what`, a flag) for this process: created if
 * needed (src/input/path-node.ts), locked, and cleared of killed runs' leftovers.
 */
export async function lockCheckpointDir(root: string, what = '--checkpoint-dir'): Promise<CheckpointDirLock> {
  const dir = await ensureDirectory(root, what);
  const lockPath = join(dir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  const tmp = join(dir, `${LOCK_FILE}.tmp-${process.pid}`);
  const fh = await open(tmp, 'w', 0o644);
  try {
    await fh.writeFile(`${JSON.stringify(mine)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await link(tmp, lockPath);
        break;
      } catch (e) {
        if (errno(e) !== 'EEXIST' || attempt > 0) throw e;
      }
      const held = await readLock(lockPath);
      if (held && (held.host !== mine.host || alive(held.pid)))
        throw new PathError(
          dir,
          what,
          `is in use by process ${held.pid} on ${held.host} (since ${held.started}): two runs writing one ` +
            `directory would replace each other's checkpoints; wait for that run or give another directory`,
          'ELOCKED',
        );
      if (!held)
        throw new PathError(
          dir,
          what,
          `holds a lock file ${LOCK_FILE} that is not webddp's (or is damaged): remove it if no run uses this directory`,
          'ELOCKED',
        );
      await rm(lockPath, { force: true }); // its process is gone: a stale lock
    }
  } finally {
    await rm(tmp, { force: true });
  }
  await syncDir(dir);
  const removed: string[] = [];
  for (const name of await readdir(dir))
    if (LEFTOVER.test(name)) {
      await rm(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    }
  if (removed.length > 0) await syncDir(dir);
  return {
    root: dir,
    removed,
    async release() {
      const held = await readLock(lockPath);
      if (held?.pid === mine.pid && held.host === mine.host) await rm(lockPath, { force: true });
    },
  };
}
