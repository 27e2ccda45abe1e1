// Test harness (e2e only): the page's checkpoint panel (src/ui/controls/run-life.ts) saving into
// IndexedDB exactly as a run does (its sink), resuming from the newest checkpoint as "Resume from
// the last checkpoint" does, and filler data in a database of its own that takes up this origin's
// storage until the browser refuses more.
import type { Snapshot } from '../../../src/checkpoint/checkpoint.ts';
import type { DatasetRecord } from '../../../src/checkpoint/dataset-record.ts';
import { DEFAULT_CONFIG } from '../../../src/config.ts';
import { simpleCnnSpec } from '../../../src/nn/spec.ts';
import { RunLifePanel } from '../../../src/ui/controls/run-life.ts';
import { outcome, sha256Of, type Outcome } from './outcome.ts';

export interface SavedCheckpoint {
  /** Where the panel says it went ("IndexedDB webddp-checkpoints/step-3"). */
  readonly where: string;
  /** The panel's status line afterwards. */
  readonly status: string;
}

export interface ResumedCheckpoint {
  readonly where: string;
  readonly globalStep: number;
  /** SHA-256 of the decoded parameters and optimizer buffers (float32 bytes). */
  readonly stateSha: string;
}

export interface QuotaHarness {
  /** Saves the checkpoint of a (synthetic, SGD momentum, width 1: 4.4 MB) run at `globalStep` through the panel's sink. */
  save(globalStep: number): Promise<Outcome<SavedCheckpoint>>;
  /** SHA-256 of what save(globalStep) stores, decoded, for comparison with resume(). */
  expected(globalStep: number): Promise<string>;
  /** The newest checkpoint, read and decoded as a resume does. */
  resume(): Promise<Outcome<ResumedCheckpoint>>;
  /** Writes 1 MiB values into the filler database until the browser refuses one (at most `maxMiB`); the refusal's name. */
  fill(maxMiB: number): Promise<{ stored: number; refused: string }>;
  /** Deletes the filler database. */
  unfill(): Promise<void>;
}

const FILLER_DATABASE = 'webddp-e2e-filler';
const spec = simpleCnnSpec(1);
const config = { ...DEFAULT_CONFIG, workers: 1, trainLimit: 64, testLimit: 16 };
const dataset: DatasetRecord = { kind: 'tensors', train: 64, test: 16 };
const panel = new RunLifePanel({ checkpoints: true, checkpointEvery: 1, keep: 2 });
document.body.append(panel.element);

/** A run's state at `globalStep`: parameters and momentum that differ from step to step. */
function snapshot(globalStep: number): Snapshot {
  const ramp = (k: number) => Float32Array.from({ length: spec.total }, (_, i) => Math.sin(i * k + globalStep));
  return {
    config,
    position: { epoch: 0, step: globalStep, globalStep, stepsPerEpoch: 16 },
    params: ramp(0.1),
    optimizer: { step: globalStep, buffers: { momentum_buffer: ramp(0.3) } },
  };
}

const stateSha = (s: Snapshot) =>
  sha256Of([
    new Uint8Array(s.params.buffer),
    ...Object.values(s.optimizer?.buffers ?? {}).map((b) => new Uint8Array(b.buffer)),
  ]);

function openFiller(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(FILLER_DATABASE, 1);
    r.onupgradeneeded = () => r.result.createObjectStore('filler');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error(`cannot open ${FILLER_DATABASE}`));
  });
}

/** 1 MiB that does not compress: each value distinct. */
function incompressible(seed: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(2 ** 20);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < b.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 255;
    b[i + 1] = (x >>> 8) & 255;
    b[i + 2] = (x >>> 16) & 255;
    b[i + 3] = x >>> 24;
  }
  return b;
}

const harness: QuotaHarness = {
  save: (globalStep) =>
    outcome(async () => {
      const sink = panel.sink(config, { checkpoints: true, checkpointEvery: 1, keep: 2, maxRestarts: 0 }, dataset);
      if (!sink) throw new Error('the panel saves no checkpoints');
      const where = await sink.save(snapshot(globalStep));
      return { where, status: document.querySelector('#life-status')?.textContent ?? '' };
    }),
  expected: (globalStep) => stateSha(snapshot(globalStep)),
  resume: () =>
    outcome(async () => {
      const { where, snapshot: s } = await panel.last();
      return { where, globalStep: s.position.globalStep, stateSha: await stateSha(s) };
    }),
  fill: async (maxMiB) => {
    const db = await openFiller();
    let stored = 0;
    let refused = '';
    while (stored < maxMiB && !refused) {
      const value = incompressible(stored + 1);
      refused = await new Promise<string>((resolve) => {
        const tx = db.transaction('filler', 'readwrite');
        tx.objectStore('filler').put(value, stored);
        tx.oncomplete = () => resolve('');
        tx.onabort = () => resolve(tx.error?.name ?? 'AbortError');
      });
      if (!refused) stored++;
    }
    db.close();
    return { stored, refused };
  },
  unfill: () =>
    new Promise((resolve, reject) => {
      const r = indexedDB.deleteDatabase(FILLER_DATABASE);
      r.onsuccess = () => resolve();
      r.onerror = () => reject(r.error ?? new Error(`cannot delete ${FILLER_DATABASE}`));
    }),
};

declare global {
  interface Window {
    webddpQuota?: QuotaHarness;
  }
}
window.webddpQuota = harness;
