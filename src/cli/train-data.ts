// Node only: the dataset a `webddp train` run reads, prepared in a directory store that every
// rank opens: the built-in synthetic dataset, or CIFAR-10 imported from a path (.tar.gz or a
// directory of .bin files), with a progress bar. Imports are idempotent (same data: no writes).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { importFromPath } from '../data/import-node.ts';
import { FileDatasetStore } from '../data/store-file-node.ts';
import { importSynthetic, SYNTHETIC_DATASET } from '../data/synthetic.ts';
import type { DataSpec } from '../runtime/protocol.ts';
import type { DatasetManifest } from '../data/store.ts';
import type { CliIO } from './command.ts';

/** The dataset a run reads: where every rank opens it, and its manifest (what a checkpoint records). */
export interface PreparedData {
  readonly data: DataSpec & { kind: 'file' };
  readonly manifest: DatasetManifest;
}

/** The default store: $WEBDDP_HOME/datasets, else ~/.cache/webddp/datasets. */
export function defaultStoreDir(): string {
  return join(process.env.WEBDDP_HOME ?? join(homedir(), '.cache', 'webddp'), 'datasets');
}

export async function prepareData(data: string, storeDir: string, io: CliIO, quiet: boolean): Promise<PreparedData> {
  const store = await FileDatasetStore.open(storeDir);
  if (data === 'synthetic') {
    const r = await importSynthetic(store);
    if (!quiet)
      io.err(
        `data: built-in synthetic dataset (${r.manifest.splits.train.records} train, ${r.manifest.splits.test.records} test) in ${storeDir}\n`,
      );
    return { data: { kind: 'file', dir: storeDir, dataset: SYNTHETIC_DATASET }, manifest: r.manifest };
  }
  const bar = quiet
    ? null
    : new SingleBar({
        format: 'import {bar} {percentage}% | {value}/{total} MiB | {file}',
        hideCursor: true,
        stream: process.stderr,
      });
  let started = false;
  const r = await importFromPath(data, store, {
    name: 'cifar10',
    onProgress(p) {
      if (!bar || p.totalBytes === undefined) return;
      const mib = (b: number) => Math.round(b / 2 ** 20);
      if (!started) {
        bar.start(mib(p.totalBytes), 0, { file: '' });
        started = true;
      }
      bar.update(mib(p.bytesRead), { file: p.file ?? p.phase });
    },
  }).finally(() => {
    if (started) bar?.stop();
  });
  if (!quiet)
    io.err(
      `data: ${data} -> dataset 'cifar10' (${r.manifest.splits.train.records} train, ${r.manifest.splits.test.records} test)${r.unchanged ? ', already imported' : ''}\n`,
    );
  return { data: { kind: 'file', dir: storeDir, dataset: 'cifar10' }, manifest: r.manifest };
}
