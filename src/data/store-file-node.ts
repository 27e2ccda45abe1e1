// Node-only DatasetStore backed by a directory:
//   <dir>/manifests/<name>.json   committed manifests (the commit markers)
//   <dir>/chunks/<sha256>.bin     chunks, content-addressed
//   <dir>/tmp/                    files being written
// Every file is written to tmp/, fsynced, then renamed into place (atomic on one filesystem), and
// the directory is fsynced after the rename, so a crash leaves either the old or the new file.
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from './store-errors.ts';
import { DATASET_NAME } from './manifest.ts';
import type { DatasetManifest, DatasetStore } from './store.ts';
import { parseJson } from '../input/json.ts';
import { ensureDirectory } from '../input/path-node.ts';

const HEX = /^[0-9a-f]{64}$/;
let tmpCounter = 0;

function isNotFound(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ENOENT';
}

/** A DatasetStore in a directory (created if needed). */
export class FileDatasetStore implements DatasetStore {
  readonly where: string;
  private readonly manifests: string;
  private readonly chunks: string;
  private readonly tmp: string;

  private constructor(readonly dir: string) {
    this.where = `directory ${dir}`;
    this.manifests = join(dir, 'manifests');
    this.chunks = join(dir, 'chunks');
    this.tmp = join(dir, 'tmp');
  }

  /**
   * Opens (creating) the store at `dir`. A writer (the default) also clears the temporary files a
   * crashed write left; `{ reader: true }` (a rank's worker: many open the store at once, even in one
   * thread) leaves them alone, so that one opening cannot remove the directory another is creating.
   */
  static async open(dir: string, o: { readonly reader?: boolean } = {}): Promise<FileDatasetStore> {
    const s = new FileDatasetStore(dir);
    // created one component at a time, refusing an empty path, a non-directory and /proc, /sys, /dev
    await ensureDirectory(dir, 'store directory', { writable: !o.reader });
    try {
      await mkdir(s.manifests, { recursive: true });
      await mkdir(s.chunks, { recursive: true });
      if (!o.reader) await rm(s.tmp, { recursive: true, force: true });
      await mkdir(s.tmp, { recursive: true });
    } catch (e) {
      throw new StoreError(s.where, 'creating the store directories', e);
    }
    return s;
  }

  private manifestPath(name: string): string {
    if (!DATASET_NAME.test(name)) throw new RangeError(`invalid dataset name '${name}'`);
    return join(this.manifests, `${name}.json`);
  }

  private chunkPath(sha256: string): string {
    if (!HEX.test(sha256)) throw new RangeError(`invalid chunk checksum '${sha256}'`);
    return join(this.chunks, `${sha256}.bin`);
  }

  /** Writes `bytes` to `dest` through a fsynced temporary file and a rename. */
  private async atomicWrite(dest: string, dir: string, bytes: Uint8Array, what: string): Promise<void> {
    const tmp = join(this.tmp, `${process.pid}-${++tmpCounter}.tmp`);
    try {
      const fh = await open(tmp, 'w');
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, dest);
      await syncDir(dir);
    } catch (e) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw new StoreError(this.where, what, e);
    }
  }

  async getManifest(name: string): Promise<unknown> {
    let text: string;
    try {
      text = await readFile(this.manifestPath(name), 'utf8');
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw new StoreError(this.where, `reading manifest '${name}'`, e);
    }
    const json = parseJson(text);
    return json.ok ? json.value : { corrupt: true, name }; // parseManifest reports it
  }

  async listManifests(): Promise<unknown[]> {
    const names = (await readdir(this.manifests)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    const out: unknown[] = [];
    for (const n of names.filter((x) => DATASET_NAME.test(x))) {
      const m = await this.getManifest(n);
      if (m !== undefined) out.push(m);
    }
    return out;
  }

  async putManifest(manifest: DatasetManifest): Promise<void> {
    const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 1)}\n`);
    await this.atomicWrite(
      this.manifestPath(manifest.name),
      this.manifests,
      bytes,
      `writing manifest '${manifest.name}'`,
    );
  }

  async deleteManifest(name: string): Promise<void> {
    try {
      await rm(this.manifestPath(name), { force: true });
      await syncDir(this.manifests);
    } catch (e) {
      throw new StoreError(this.where, `deleting manifest '${name}'`, e);
    }
  }

  async getChunk(sha256: string): Promise<Uint8Array | undefined> {
    try {
      const buf = await readFile(this.chunkPath(sha256));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw new StoreError(this.where, `reading chunk ${sha256}`, e);
    }
  }

  async putChunk(sha256: string, bytes: Uint8Array): Promise<void> {
    await this.atomicWrite(this.chunkPath(sha256), this.chunks, bytes, `writing chunk ${sha256}`);
  }

  async deleteChunks(sha256s: readonly string[]): Promise<void> {
    try {
      for (const k of sha256s) await rm(this.chunkPath(k), { force: true });
    } catch (e) {
      throw new StoreError(this.where, 'deleting chunks', e);
    }
  }

  async listChunks(): Promise<string[]> {
    return (await readdir(this.chunks))
      .filter((f) => f.endsWith('.bin'))
      .map((f) => f.slice(0, -4))
      .filter((k) => HEX.test(k));
  }

  /** Path of a chunk's file (for tools and tests). */
  chunkFile(sha256: string): string {
    return this.chunkPath(sha256);
  }
}

/** fsyncs a directory so a rename in it is durable (not supported on every platform: ignored there). */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows cannot open directories; the rename itself is still atomic.
  } finally {
    await fh?.close();
  }
}
