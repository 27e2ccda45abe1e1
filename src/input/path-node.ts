// Node only: every path webddp writes to is taken in here. An output file (--save, --trace,
// --out, --junit, --save-baseline) may replace only a regular file, never a device, FIFO, socket or
// directory; an output directory (export-torchrun --out) must be absent or a directory; a
// directory (--store, --checkpoint-dir) must be one or be creatable, and is created by walking its
// components one by one (Node 20's recursive mkdir loops forever under /proc); nothing is written
// under the kernel's pseudo filesystems (/proc, /sys, /dev except /dev/shm, cgroup, debugfs...);
// an empty path is refused by name; a read-only filesystem is said as such (EROFS) before a run
// starts, not as ENOENT after its first step.
import { constants, type Stats } from 'node:fs';
import { access, lstat, mkdir, realpath, stat, statfs } from 'node:fs/promises';
import { dirname, parse, resolve, sep } from 'node:path';

/** A path that cannot be used for what it was given for: names the path (and the flag, when there is one). */
export class PathError extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
    detail: string,
    readonly code?: string,
  ) {
    super(`${what} ${path === '' ? "''" : path}: ${detail}`);
    this.name = 'PathError';
  }
}

export type FileKind =
  'directory' | 'FIFO (named pipe)' | 'socket' | 'character device' | 'block device' | 'special file';

/** What a non-regular file is, in words (undefined for a regular file). */
export function kindOf(st: Stats): FileKind | undefined {
  if (st.isFile()) return undefined;
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'FIFO (named pipe)';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  return 'special file';
}

/** Linux statfs magic numbers of filesystems that are the kernel's, not storage. */
const PSEUDO_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x6165676c, 'pstore'],
  [0x19800202, 'mqueue'],
]);
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev'];
const ALLOWED_UNDER_PSEUDO = ['/dev/shm'];

const errno = (e: unknown) => (e as { code?: string } | null)?.code;
const under = (p: string, root: string) => p === root || p.startsWith(`${root}/`);

/** The words for an error code a write can meet, where the system's are unclear. */
export function codeHint(code: string | undefined): string {
  switch (code) {
    case 'ENOSPC':
      return ' (the disk is full)';
    case 'EDQUOT':
      return ' (disk quota exceeded)';
    case 'EROFS':
      return ' (EROFS: the filesystem is read-only)';
    case 'EACCES':
    case 'EPERM':
      return ' (no permission to write there)';
    default:
      return '';
  }
}

/** Refuses an empty path or one with a NUL byte, naming `what` (a flag). */
function checkPathText(path: string, what: string): void {
  if (path === '') throw new PathError(path, what, 'is empty: give a path');
  if (path.includes('\0')) throw new PathError(path, what, 'contains a NUL byte');
}

/** The nearest existing ancestor of `abs` (itself if it exists). */
async function existingAncestor(abs: string): Promise<string> {
  let p = abs;
  for (;;) {
    try {
      await stat(p);
      return p;
    } catch (e) {
      const parent = dirname(p);
      if (parent === p || (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR')) return p;
      p = parent;
    }
  }
}

/** Refuses a path on one of the kernel's pseudo filesystems (by where it resolves and by statfs). */
async function checkNotPseudo(abs: string, what: string): Promise<void> {
  const near = await existingAncestor(abs);
  const real = await realpath(near).catch(() => near);
  const rest = abs.slice(near.length);
  const full = real + rest;
  for (const root of PSEUDO_ROOTS)
    if (under(full, root) && !ALLOWED_UNDER_PSEUDO.some((a) => under(full, a)))
      throw new PathError(abs, what, `is under ${root}, the kernel's filesystem, not storage; refusing to write there`);
  const fs = await statfs(near).catch(() => null);
  const name = fs ? PSEUDO_FS.get(Number(fs.type)) : undefined;
  if (name) throw new PathError(abs, what, `is on a ${name} filesystem, not storage; refusing to write there`);
}

/** Refuses a directory this process cannot write into, saying why (read-only filesystem, permission). */
async function checkWritableDir(dir: string, what: string, file?: string): Promise<void> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (e) {
    const code = errno(e);
    const why = codeHint(code) || ` (${(e as Error).message})`;
    throw new PathError(file ?? dir, what, `cannot write ${file ? `in its directory ${dir}` : 'there'}${why}`, code);
  }
}

/**
 * Checks that `path` may be written as an output file (`what`: the flag, for messages): not empty,
 * not an existing non-regular file (a directory, device, FIFO, socket), not on a pseudo filesystem,
 * in an existing directory this process can write. Returns the absolute path.
 */
export async function checkOutputFile(path: string, what: string): Promise<string> {
  checkPathText(path, what);
  const abs = resolve(path);
  await checkNotPseudo(abs, what);
  await checkReplaceable(abs, what);
  const dir = dirname(abs);
  const d = await stat(dir).catch((e: unknown) => {
    throw new PathError(path, what, `its directory ${dir} cannot be used (${(e as Error).message})`, errno(e));
  });
  if (!d.isDirectory()) throw new PathError(path, what, `${dir} is not a directory`);
  await checkWritableDir(dir, what, path);
  return abs;
}

/**
 * Checks that `path` may become an output directory written later (`what`: the flag, for messages):
 * not empty, not on a pseudo filesystem, absent or a directory, and the directory it will be made in
 * (its nearest existing ancestor) one this process can write. Creates nothing. Returns the absolute path.
 */
export async function checkOutputDirectory(path: string, what: string): Promise<string> {
  checkPathText(path, what);
  const abs = resolve(path);
  await checkNotPseudo(abs, what);
  const near = await existingAncestor(abs);
  const s = await stat(near).catch((e: unknown) => {
    throw new PathError(path, what, `${near} cannot be used (${(e as Error).message})`, errno(e));
  });
  const kind = kindOf(s);
  if (kind !== 'directory')
    throw new PathError(
      path,
      what,
      `${near === abs ? 'is' : `${near} is`} a ${kind ?? 'regular file'}, not a directory`,
    );
  await checkWritableDir(near === abs ? dirname(abs) : near, what, path);
  return abs;
}

/** Refuses to replace anything at `path` but a regular file (a symbolic link is followed to what it names). */
export async function checkReplaceable(path: string, what: string): Promise<void> {
  const l = await lstat(path).catch((e: unknown) => {
    if (errno(e) === 'ENOENT') return null;
    throw new PathError(path, what, `cannot be checked (${(e as Error).message})`, errno(e));
  });
  if (!l) return;
  const s = l.isSymbolicLink() ? await stat(path).catch(() => null) : l;
  const kind = s ? kindOf(s) : undefined;
  if (kind) throw new PathError(path, what, `is a ${kind}, not a regular file; refusing to replace it`);
}

/**
 * Makes sure `path` is a directory this process can write (`what`: the flag), creating it and its
 * missing parents one component at a time; refuses an empty path, a component that is not a
 * directory, a pseudo filesystem, a read-only or forbidden one (unless `writable: false`: a reader's).
 * Returns the absolute path.
 */
export async function ensureDirectory(
  path: string,
  what: string,
  o: { readonly writable?: boolean } = {},
): Promise<string> {
  checkPathText(path, what);
  const abs = resolve(path);
  await checkNotPseudo(abs, what);
  const { root } = parse(abs);
  const parts = abs.slice(root.length).split(sep).filter(Boolean);
  let at = root;
  for (const part of parts) {
    at = at === root ? `${root}${part}` : `${at}${sep}${part}`;
    let s = await stat(at).catch((e: unknown) => {
      if (errno(e) === 'ENOENT') return null;
      throw new PathError(abs, what, `${at} cannot be used (${(e as Error).message})`, errno(e));
    });
    if (!s) {
      await mkdir(at).catch((e: unknown) => {
        if (errno(e) === 'EEXIST') return; // made at the same moment by another process
        const code = errno(e);
        throw new PathError(abs, what, `cannot create ${at}${codeHint(code) || ` (${(e as Error).message})`}`, code);
      });
      s = await stat(at);
    }
    const kind = kindOf(s);
    if (kind !== 'directory') throw new PathError(abs, what, `${at} is a ${kind ?? 'regular file'}, not a directory`);
  }
  if (o.writable !== false) await checkWritableDir(abs, what);
  return abs;
}
