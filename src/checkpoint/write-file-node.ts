// Writing an output file (`train --save`, `--trace`, `parity --out`, `init --out`, `check --junit`,
// `--save-baseline`) so that a failure loses nothing and leaves nothing. The target is checked first (src/input/path-node.ts):
// an existing directory, device, FIFO or socket is never replaced (checked again just before the
// rename), an empty path or one under /proc, /sys or /dev is refused, a read-only filesystem is
// said as such. Then the bytes go to a temporary file next to the target, which is
// fsynced and renamed over it (atomic on one filesystem), then the directory is fsynced. On any
// error (ENOSPC on a full disk, EACCES, EISDIR...) the temporary file is removed, the previous
// file at the path is untouched, and the error names the path and the cause.
//
// Not write-file-atomic (npm): its 7.0.1 issues one fs.write and ignores a short count, so on a
// full disk it renamed a truncated file into place and resolved (measured here: 65,536 of 200,000
// bytes on a 64 KiB tmpfs). FileHandle.writeFile loops until every byte is written or one fails.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkOutputFile, checkReplaceable, codeHint } from '../input/path-node.ts';

let counter = 0;

/** Writing an output file failed; nothing was written at `path`. */
export class WriteFileError extends Error {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    const [why, hint] = writeFailure(code, cause);
    super(`cannot write ${path}: ${why}${hint}; nothing was written there and any previous file is unchanged`, {
      cause,
    });
    this.name = 'WriteFileError';
  }
}

/** A failed write's message and, for a full disk or quota, what that code means. */
export function writeFailure(code: string | undefined, cause: unknown): [why: string, hint: string] {
  const why = cause instanceof Error ? cause.message : String(cause);
  return [why, codeHint(code)];
}

/** fsyncs a file or directory so a rename in it is durable (not possible everywhere: ignored then). */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // e.g. Windows cannot open a directory; the rename itself is still atomic
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Writes `bytes` to `path` (given as `what`: a flag) through `path.tmp-PID-N`, fsync and rename; see the file comment. */
export async function writeFileSafely(path: string, bytes: Uint8Array, what = 'output file'): Promise<void> {
  await checkOutputFile(path, what);
  const tmp = `${path}.tmp-${process.pid}-${++counter}`;
  let fh: FileHandle | undefined;
  let created = false;
  try {
    fh = await open(tmp, 'wx', 0o644);
    created = true;
    await fh.writeFile(bytes);
    await fh.sync();
    const h = fh;
    fh = undefined;
    await h.close();
    await checkReplaceable(path, what);
    await rename(tmp, path);
  } catch (e) {
    await fh?.close().catch(() => undefined);
    if (created) await rm(tmp, { force: true }).catch(() => undefined);
    throw new WriteFileError(path, (e as { code?: string } | null)?.code, e);
  }
  await syncDir(dirname(path));
}
