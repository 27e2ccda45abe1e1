// Checkpoints in the browser's IndexedDB (the page's twin of dir-node.ts), through idb-keyval in a
// database of their own. Each checkpoint's three files are values 'file/<id>/<name>' (one value per
// file: Chromium refuses single values over ~127 MiB); the key 'current' holds the pointer, the
// list of checkpoints that exist, oldest first. A checkpoint is written whole first (its three
// files in one transaction), then ONE update of the pointer makes it current and drops the oldest
// beyond `keep`; only then are files no pointer names deleted. A write that fails (a full quota:
// QuotaExceededError, an aborted transaction, a closed tab) leaves the pointer and every earlier
// checkpoint as they were, and its own partial files are swept up by the next write.
import { createStore, delMany, get, getMany, keys, setMany, update, type UseStore } from 'idb-keyval';
import { CHECKPOINT_FILES, CheckpointError, readTrainerJson, type CheckpointBytes } from './checkpoint.ts';

export const CHECKPOINT_DATABASE = 'webddp-checkpoints';
export const CHECKPOINT_OBJECT_STORE = 'checkpoints';
const POINTER = 'current';
const FILE = 'file/';

/** One stored checkpoint, as the pointer lists it. */
export interface StoredCheckpoint {
  readonly id: string;
  readonly epoch: number;
  readonly step: number;
  readonly globalStep: number;
  readonly stepsPerEpoch: number;
  readonly mode: string;
  readonly workers: number;
  readonly bytes: number;
  /** Date.now() when it was written. */
  readonly savedAt: number;
}

interface Pointer {
  readonly format: 'webddp-checkpoints';
  /** Oldest first; the last is the newest. */
  readonly entries: readonly StoredCheckpoint[];
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

/** Writing a checkpoint failed: nothing new became current, the earlier checkpoints are unchanged. */
export class CheckpointStoreError extends Error {
  constructor(
    message: string,
    /** True when the browser's storage quota was full (QuotaExceededError). */
    readonly quota: boolean,
    cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'CheckpointStoreError';
  }
}

function isQuota(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  const message = (e as { message?: unknown } | null)?.message;
  return name === 'QuotaExceededError' || (typeof message === 'string' && /quota/i.test(message));
}

/** What the browser reports about its storage after it refused `bytes` for a full quota. */
async function estimate(bytes: number): Promise<string> {
  try {
    const est = typeof navigator === 'undefined' ? undefined : await navigator.storage?.estimate?.();
    if (est?.usage === undefined || est.quota === undefined) return '';
    // Chromium reports usage plus a fixed amount as the quota, not the limit it enforces.
    return est.quota - est.usage >= bytes
      ? `; the browser's real limit for this site, set by the disk's size and free space, is lower than the ` +
          `${mib(est.quota)} navigator.storage.estimate() reports (${mib(est.usage)} used)`
      : `; navigator.storage.estimate() reports ${mib(est.usage)} used of ${mib(est.quota)}`;
  } catch {
    return '';
  }
}

/** A stored value as bytes (a value of any other kind reads as empty and fails its size check). */
function asBytes(v: unknown): Uint8Array | undefined {
  if (v === undefined) return undefined;
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return new Uint8Array(0);
}

/** Structured clone copies a view's whole buffer: store an exact-size copy. */
const exact = (b: Uint8Array) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

export class IdbCheckpointStore {
  readonly where: string;
  private readonly kv: UseStore;

  constructor(
    readonly database = CHECKPOINT_DATABASE,
    readonly objectStore = CHECKPOINT_OBJECT_STORE,
  ) {
    this.kv = createStore(database, objectStore);
    this.where = `IndexedDB ${database}`;
  }

  /** Where a checkpoint is, for messages and the log: "IndexedDB webddp-checkpoints/step-12". */
  whereOf(c: StoredCheckpoint): string {
    return `${this.where}/step-${c.globalStep}`;
  }

  /** The stored checkpoints, oldest first. */
  async list(): Promise<StoredCheckpoint[]> {
    const p = await get<Partial<Pointer> | null>(POINTER, this.kv);
    if (p === undefined) return [];
    const entries: unknown = p?.entries;
    if (p?.format !== 'webddp-checkpoints' || !Array.isArray(entries))
      throw new CheckpointError(`${this.where}/${POINTER}`, 'is not a checkpoint list (written by something else?)');
    return [...(entries as StoredCheckpoint[])];
  }

  /**
   * Stores a checkpoint and makes it the newest, keeping the newest `keep` (0: all). Throws
   * CheckpointStoreError (with `quota` set when the quota was full) and then changes nothing.
   */
  async write(files: CheckpointBytes, keep: number): Promise<StoredCheckpoint> {
    const head = readTrainerJson(files['trainer.json'], 'trainer.json');
    const p = head.position;
    const bytes = CHECKPOINT_FILES.reduce((a, f) => a + files[f].byteLength, 0);
    const entry: StoredCheckpoint = {
      id: `step-${p.globalStep}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      epoch: p.epoch,
      step: p.step,
      globalStep: p.globalStep,
      stepsPerEpoch: p.stepsPerEpoch,
      mode: head.config.mode,
      workers: head.config.workers,
      bytes,
      savedAt: Date.now(),
    };
    const name = this.whereOf(entry);
    const previous = (await this.list().catch(() => [])).at(-1);
    const fail = async (e: unknown): Promise<never> => {
      // The files of this write (one transaction: all or none were stored) are not current: drop them.
      await delMany(this.fileKeys(entry.id), this.kv).catch(() => undefined);
      const kept = previous
        ? `the previous checkpoint (step ${previous.globalStep}) is unchanged`
        : 'no earlier checkpoint was stored';
      if (isQuota(e))
        throw new CheckpointStoreError(
          `the browser's storage quota is full: cannot store checkpoint ${name} (${mib(bytes)})${await estimate(bytes)}; ` +
            `${kept}. Free space (on the disk, other sites' data, or fewer checkpoints kept) and save again`,
          true,
          e,
        );
      const why =
        e instanceof Error || e instanceof DOMException
          ? e.message
          : `${(e as string | null) ?? 'IndexedDB transaction aborted'}`;
      throw new CheckpointStoreError(`cannot store checkpoint ${name}: ${why}; ${kept}`, false, e);
    };
    try {
      await this.locked(() => this.put(entry, files, keep));
    } catch (e) {
      return fail(e);
    }
    await this.locked(() => this.sweep()).catch(() => undefined); // space only: a left-over file goes next time
    return entry;
  }

  /**
   * Holds this store for one run (Web Locks, across the page's tabs; released by the returned
   * function, or when the tab closes). Another tab's run holding it: CheckpointStoreError, so two
   * runs never interleave their checkpoints and prune each other's.
   */
  async claimRun(): Promise<() => void> {
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (!locks) return () => {};
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const got = await new Promise<boolean>((resolve, reject) => {
      locks
        .request(`${this.database}/run`, { ifAvailable: true }, async (lock) => {
          resolve(lock !== null);
          if (lock) await held;
        })
        .catch(reject);
    });
    if (!got)
      throw new CheckpointStoreError(
        `another tab of this page is running with checkpoints in ${this.where}: two runs would replace each ` +
          `other's checkpoints; stop that run, or turn checkpoints off here`,
        false,
        null,
      );
    return release;
  }

  /** Across tabs: one write or sweep at a time (a sweep must not take a write's files before its swap). */
  private locked<T>(op: () => Promise<T>): Promise<T> {
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    return locks ? locks.request(`${this.database}/write`, op) : op();
  }

  private async put(entry: StoredCheckpoint, files: CheckpointBytes, keep: number): Promise<void> {
    await setMany(
      CHECKPOINT_FILES.map((f) => [`${FILE}${entry.id}/${f}`, exact(files[f])]),
      this.kv,
    );
    // The one swap: the pointer now names the new checkpoint (and forgets the oldest beyond keep).
    await update<Pointer | undefined>(
      POINTER,
      (old) => {
        const all = [...(old?.entries ?? []), entry];
        return { format: 'webddp-checkpoints', entries: keep > 0 ? all.slice(-keep) : all };
      },
      this.kv,
    );
  }

  /** The three files of a checkpoint (default: the newest); a missing one is refused by name. */
  async read(id?: string): Promise<{ entry: StoredCheckpoint; files: CheckpointBytes }> {
    const all = await this.list();
    const entry = id === undefined ? all.at(-1) : all.find((e) => e.id === id);
    if (!entry)
      throw new CheckpointError(this.where, id === undefined ? 'holds no checkpoint' : `holds no checkpoint ${id}`);
    const values = await getMany<unknown>(this.fileKeys(entry.id), this.kv);
    const files = {} as Record<(typeof CHECKPOINT_FILES)[number], Uint8Array>;
    CHECKPOINT_FILES.forEach((f, i) => {
      const b = asBytes(values[i]);
      if (!b) throw new CheckpointError(`${this.whereOf(entry)}/${f}`, 'is missing');
      files[f] = b;
    });
    return { entry, files };
  }

  /** Deletes every checkpoint (the pointer first, so none is ever half there). */
  async clear(): Promise<void> {
    await this.locked(async () => {
      await update(POINTER, () => ({ format: 'webddp-checkpoints', entries: [] }) satisfies Pointer, this.kv);
      await this.sweep();
    });
  }

  private fileKeys(id: string): string[] {
    return CHECKPOINT_FILES.map((f) => `${FILE}${id}/${f}`);
  }

  /** Deletes the files of checkpoints the pointer does not name (dropped by keep, or a failed write's). */
  private async sweep(): Promise<void> {
    const live = new Set((await this.list()).map((e) => e.id));
    const dead = (await keys<IDBValidKey>(this.kv)).filter(
      (k): k is string => typeof k === 'string' && k.startsWith(FILE) && !live.has(k.slice(FILE.length).split('/')[0]!),
    );
    if (dead.length > 0) await delMany(dead, this.kv);
  }
}
