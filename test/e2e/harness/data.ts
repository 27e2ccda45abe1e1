// Test harness page (e2e only, built when WEBDDP_HARNESS=1): exposes the data layer on
// window.webddpData so puppeteer tests can import archives into real IndexedDB, read them back
// after a reload, and load a shard in a real module worker; claim the checkpoint store for a run.
import { IdbCheckpointStore } from '../../../src/checkpoint/dir-idb.ts';
import { openDataset } from '../../../src/data/dataset.ts';
import { importArchive, importFromUrl } from '../../../src/data/import.ts';
import type { ImportResult } from '../../../src/data/import-types.ts';
import { IdbDatasetStore } from '../../../src/data/store-idb.ts';
import type { DatasetManifest } from '../../../src/data/store.ts';
import { importSynthetic } from '../../../src/data/synthetic.ts';
import { outcome, sha256Of, type Outcome } from './outcome.ts';

export interface ImportSummary {
  readonly manifest: DatasetManifest;
  readonly unchanged: boolean;
  readonly persisted: boolean | undefined;
  readonly chunksWritten: number;
  readonly chunksReused: number;
  readonly ignored: readonly string[];
  readonly phases: readonly string[];
}

export interface ReadBack {
  readonly manifest: DatasetManifest;
  readonly trainSha: string;
  readonly testSha: string;
}

export interface DataHarness {
  importArchive(
    base64: string,
    opts: { recordsPerChunk?: number; withTotal?: boolean },
  ): Promise<Outcome<ImportSummary>>;
  importUrl(url: string): Promise<Outcome<ImportSummary>>;
  importSynthetic(opts: { seed: number; train: number; test: number }): Promise<Outcome<ImportSummary>>;
  readBack(name: string): Promise<Outcome<ReadBack>>;
  listChunks(): Promise<string[]>;
  shardInWorker(name: string, indices: number[]): Promise<Outcome<{ labels: number[]; imagesSha: string }>>;
  /** Claims the checkpoint store for a run, as the page does when a run with checkpoints starts. */
  claimCheckpoints(): Promise<Outcome<true>>;
  /** Releases this tab's claim, as the page does when its run ends. */
  releaseCheckpoints(): void;
}

const store = new IdbDatasetStore();
let releaseClaim = () => {};

function summary(r: ImportResult, phases: string[]): ImportSummary {
  return {
    manifest: r.manifest,
    unchanged: r.unchanged,
    persisted: r.persisted,
    chunksWritten: r.chunksWritten,
    chunksReused: r.chunksReused,
    ignored: r.ignored,
    phases,
  };
}

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(base64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const harness: DataHarness = {
  importArchive: (base64, opts) =>
    outcome(async () => {
      const blob = new Blob([decode(base64)]); // what a File picked by the user looks like
      const phases: string[] = [];
      const r = await importArchive(blob.stream(), store, {
        recordsPerChunk: opts.recordsPerChunk,
        totalBytes: opts.withTotal === false ? undefined : blob.size,
        onProgress: (p) => {
          if (phases.at(-1) !== p.phase) phases.push(p.phase);
        },
      });
      return summary(r, phases);
    }),
  importUrl: (url) =>
    outcome(async () => {
      const phases: string[] = [];
      const r = await importFromUrl(url, store, {
        onProgress: (p) => {
          if (phases.at(-1) !== p.phase) phases.push(p.phase);
        },
      });
      return summary(r, phases);
    }),
  importSynthetic: (opts) => outcome(async () => summary(await importSynthetic(store, opts), [])),
  readBack: (name) =>
    outcome(async () => {
      const ds = await openDataset(store, name);
      const read = async (split: 'train' | 'test') => {
        const parts: Uint8Array[] = [];
        for (let i = 0; i < ds.manifest.splits[split].chunks.length; i++) parts.push(await ds.readChunk(split, i));
        return sha256Of(parts);
      };
      return { manifest: ds.manifest, trainSha: await read('train'), testSha: await read('test') };
    }),
  listChunks: async () => (await store.listChunks()).sort(),
  shardInWorker: (name, indices) =>
    new Promise((resolve) => {
      const worker = new Worker(new URL('./data-worker.ts', import.meta.url), { type: 'module' });
      worker.onmessage = (ev: MessageEvent<Outcome<{ labels: number[]; imagesSha: string }>>) => {
        worker.terminate();
        resolve(ev.data);
      };
      worker.postMessage({ name, indices });
    }),
  claimCheckpoints: () =>
    outcome(async () => {
      releaseClaim = await new IdbCheckpointStore().claimRun();
      return true as const;
    }),
  releaseCheckpoints: () => releaseClaim(),
};

declare global {
  interface Window {
    webddpData?: DataHarness;
  }
}
window.webddpData = harness;
