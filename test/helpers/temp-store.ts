// A fresh directory-backed dataset store for every test of the calling file (Node only): made in
// beforeEach, deleted in afterEach; `use` receives the directory and the store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';

export function useTempStore(prefix: string, use: (dir: string, store: FileDatasetStore) => void): void {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    use(dir, await FileDatasetStore.open(dir));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));
}
