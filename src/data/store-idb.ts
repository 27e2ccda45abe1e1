// Browser DatasetStore: IndexedDB through idb-keyval with its own database (idb-keyval's createStore
// makes one object store per database, so other parts of webddp must use other database names).
// Keys: 'manifest/<name>' (the commit markers) and 'chunk/<sha256>' (Uint8Array, 8-16 MiB each:
// Chromium refuses single values over ~127 MiB). One put per value, so each write is atomic.
// Quota failures become StorageQuotaError with navigator.storage.estimate() numbers; imports are
// serialised across tabs and workers with the Web Locks API.
import { createStore, del, delMany, get, getMany, keys, set, type UseStore } from 'idb-keyval';
import { StorageQuotaError, StoreError } from './store-errors.ts';
import type { DatasetManifest, DatasetStore } from './store.ts';

const MANIFEST = 'manifest/';
const CHUNK = 'chunk/';

/** Default database and object store names. */
const IDB_DATABASE = 'webddp-datasets';
const IDB_OBJECT_STORE = 'datasets';

interface StorageLike {
  estimate?(): Promise<StorageEstimate>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

function storage(): StorageLike | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.storage;
}

function isQuota(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  const message = (e as { message?: unknown } | null)?.message;
  return name === 'QuotaExceededError' || (typeof message === 'string' && /quota/i.test(message));
}

async function estimate(): Promise<{ usage: number | undefined; quota: number | undefined }> {
  try {
    const est = await storage()?.estimate?.();
    return { usage: est?.usage, quota: est?.quota };
  } catch {
    return { usage: undefined, quota: undefined };
  }
}

/** A DatasetStore in IndexedDB. */
export class IdbDatasetStore implements DatasetStore {
  readonly where: string;
  private readonly kv: UseStore;

  constructor(
    readonly database = IDB_DATABASE,
    readonly objectStore = IDB_OBJECT_STORE,
  ) {
    this.kv = createStore(database, objectStore);
    this.where = `IndexedDB ${database}/${objectStore}`;
  }

  /** Runs an idb-keyval call, turning rejections (sometimes `null`, idb-keyval#163) into StoreError. */
  private async call<T>(what: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw new StoreError(this.where, what, e ?? new Error('IndexedDB transaction aborted'));
    }
  }

  getManifest(name: string): Promise<unknown> {
    return this.call(`reading manifest '${name}'`, () => get<unknown>(MANIFEST + name, this.kv));
  }

  async listManifests(): Promise<unknown[]> {
    const ks = (await this.call('listing keys', () => keys<IDBValidKey>(this.kv))).filter(
      (k): k is string => typeof k === 'string' && k.startsWith(MANIFEST),
    );
    const values = await this.call('reading manifests', () => getMany<unknown>(ks, this.kv));
    return values.filter((v) => v !== undefined);
  }

  async putManifest(manifest: DatasetManifest): Promise<void> {
    await this.write(`writing manifest '${manifest.name}'`, MANIFEST + manifest.name, manifest, 1024);
  }

  deleteManifest(name: string): Promise<void> {
    return this.call(`deleting manifest '${name}'`, () => del(MANIFEST + name, this.kv));
  }

  async getChunk(sha256: string): Promise<Uint8Array | undefined> {
    const v = await this.call(`reading chunk ${sha256}`, () => get<unknown>(CHUNK + sha256, this.kv));
    if (v === undefined) return undefined;
    if (v instanceof Uint8Array) return v;
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    return new Uint8Array(0); // not bytes: fails its checksum
  }

  async putChunk(sha256: string, bytes: Uint8Array): Promise<void> {
    // Structured clone copies a view's whole buffer: store an exact-size copy.
    const exact = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    await this.write(
      `writing chunk ${sha256.slice(0, 16)}... (${bytes.byteLength} bytes)`,
      CHUNK + sha256,
      exact,
      bytes.byteLength,
    );
  }

  private async write(what: string, key: string, value: unknown, bytes: number): Promise<void> {
    try {
      await set(key, value, this.kv);
    } catch (e) {
      if (isQuota(e)) {
        const { usage, quota } = await estimate();
        throw new StorageQuotaError(bytes, usage, quota, `while ${what} to ${this.where}`, e);
      }
      throw new StoreError(this.where, what, e ?? new Error('IndexedDB transaction aborted'));
    }
  }

  deleteChunks(sha256s: readonly string[]): Promise<void> {
    return this.call('deleting chunks', () =>
      delMany(
        sha256s.map((k) => CHUNK + k),
        this.kv,
      ),
    );
  }

  async listChunks(): Promise<string[]> {
    const ks = await this.call('listing keys', () => keys<IDBValidKey>(this.kv));
    return ks
      .filter((k): k is string => typeof k === 'string' && k.startsWith(CHUNK))
      .map((k) => k.slice(CHUNK.length));
  }

  /** navigator.storage.persist(): true when granted; undefined where unavailable (workers, Node). */
  async persist(): Promise<boolean | undefined> {
    const s = storage();
    if (!s?.persist) return undefined;
    try {
      return (await s.persisted?.()) === true ? true : await s.persist();
    } catch {
      return undefined;
    }
  }

  /** Refuses early when estimate() says `bytes` more will not fit. */
  async checkSpace(bytes: number): Promise<void> {
    const { usage, quota } = await estimate();
    if (usage !== undefined && quota !== undefined && quota - usage < bytes) {
      throw new StorageQuotaError(bytes, usage, quota, `before importing into ${this.where}`);
    }
  }

  /** Serialises imports across tabs and workers (Web Locks), where available. */
  async withImportLock<T>(fn: () => Promise<T>): Promise<T> {
    const locks = typeof navigator === 'undefined' ? undefined : (navigator.locks as LockManager | undefined);
    if (!locks) return fn();
    return locks.request(`webddp-dataset-import:${this.database}`, fn);
  }
}
