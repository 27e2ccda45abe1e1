// Hostile input through importFromPath (the `--data PATH` import): every rejection closes every
// file it opened (descriptors under the source directory counted in /proc/self/fd), a FIFO or a
// socket is refused at once by name instead of blocking, and a tar of ignored entries with 8 MB
// pax path headers is refused after a few MiB instead of taking gigabytes.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packTar } from 'modern-tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotRegularFileError, TarMetadataTooLargeError } from '../../src/data/errors.ts';
import { CorruptTarError, DataError, RecordLengthError } from '../../src/data/errors.ts';
import { main } from '../../src/cli/main.ts';
import { importFromPath } from '../../src/data/import-node.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { flipByte, gzip, makeArchive, makeFiles, makeTar } from '../helpers/cifar-fixture.ts';
import { fdsUnder, peakGrowth, snapshot } from '../helpers/hostile.ts';

let dir = '';
let src = '';
let store: FileDatasetStore;
let before: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'webddp-hostile-'));
  src = join(dir, 'src');
  await mkdir(src);
  store = await FileDatasetStore.open(join(dir, 'store'));
  const good = join(src, 'good.tar.gz');
  await writeFile(good, await makeArchive({ files: makeFiles(4, 3, 2) }));
  await importFromPath(good, store, { recordsPerChunk: 5 });
  before = snapshot(join(dir, 'store'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** Imports `path`, expects a rejection of type `type`, no descriptor left, the store unchanged. */
async function rejects(path: string, type: new (...a: never[]) => Error, message?: RegExp): Promise<Error> {
  const r = await importFromPath(path, store, { recordsPerChunk: 5 }).then(
    () => new Error('imported'),
    (e: unknown) => e as Error,
  );
  expect(r).toBeInstanceOf(type);
  if (message) expect(r.message).toMatch(message);
  expect(fdsUnder(src)).toEqual([]);
  expect(snapshot(join(dir, 'store'))).toEqual(before);
  return r;
}

describe('importFromPath on hostile input', { timeout: 60_000 }, () => {
  it('closes the archive after a corrupt or truncated gzip stream', async () => {
    const archive = await makeArchive({ files: makeFiles(4, 3, 3) });
    for (const at of [20, 200, Math.floor(archive.byteLength / 2), archive.byteLength - 6]) {
      const p = join(src, `flip-${at}.tar.gz`);
      await writeFile(p, flipByte(archive, at, 0x55));
      await rejects(p, DataError);
    }
    const cut = join(src, 'cut.tar.gz');
    await writeFile(cut, archive.subarray(0, archive.byteLength - 100));
    await rejects(cut, DataError, /truncated/);
  });

  it('closes the archive after a truncated plain tar', async () => {
    const tar = await makeTar({ files: makeFiles(4, 3, 3) });
    const p = join(src, 'cut.tar');
    await writeFile(p, tar.subarray(0, 3000));
    await rejects(p, CorruptTarError);
  });

  it('closes every file of a directory import that fails', async () => {
    const d = join(src, 'bad-dir');
    await mkdir(d);
    for (const [name, bytes] of makeFiles(4, 3, 4)) await writeFile(join(d, name), bytes);
    await writeFile(join(d, 'data_batch_3.bin'), new Uint8Array(3073 * 2 + 5));
    await rejects(d, RecordLengthError);
  });

  it('refuses a CIFAR name in a directory that is a directory or a FIFO', async () => {
    const d = join(src, 'odd-dir');
    await mkdir(join(d, 'data_batch_1.bin'), { recursive: true });
    await rejects(d, NotRegularFileError, /data_batch_1\.bin is a directory, not a regular file/);
    await rm(join(d, 'data_batch_1.bin'), { recursive: true });
    execFileSync('mkfifo', [join(d, 'data_batch_2.bin')]);
    await rejects(d, NotRegularFileError, /data_batch_2\.bin is a FIFO \(named pipe\)/);
  });

  it('refuses a FIFO with no writer, a socket and a character device at once, naming the path', async () => {
    const fifo = join(src, 'pipe.tar.gz');
    execFileSync('mkfifo', [fifo]);
    const t0 = performance.now();
    await rejects(fifo, NotRegularFileError, new RegExp(`${fifo} is a FIFO \\(named pipe\\), not cifar-10-binary`));
    expect(performance.now() - t0).toBeLessThan(2000);
    const sock = join(src, 'sock.tar.gz');
    const server = createServer();
    await new Promise<void>((ok) => server.listen(sock, ok));
    try {
      await rejects(sock, NotRegularFileError, /sock\.tar\.gz is a socket/);
    } finally {
      server.close();
    }
    await expect(importFromPath('/dev/null', store)).rejects.toThrow(/\/dev\/null is a character device/);
  });

  it('webddp train --data FIFO exits at once with a message naming the FIFO', async () => {
    const fifo = join(src, 'train-pipe');
    execFileSync('mkfifo', [fifo]);
    let err = '';
    const t0 = performance.now();
    const code = await main(['train', '--data', fifo, '--store', join(dir, 'cli-store')], {
      out: () => undefined,
      err: (t) => void (err += t),
    });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(code).toBe(1);
    expect(err).toContain(`webddp train: error: ${fifo} is a FIFO (named pipe), not cifar-10-binary.tar.gz`);
  });

  it('webddp train --init-from FIFO and webddp parity FIFO are refused at once, naming the FIFO', async () => {
    const fifo = join(src, 'ckpt-pipe');
    execFileSync('mkfifo', [fifo]);
    for (const argv of [
      ['train', '--init-from', fifo, '--store', join(dir, 'cli-store')],
      ['parity', fifo],
    ]) {
      let err = '';
      const code = await main(argv, { out: () => undefined, err: (t) => void (err += t) });
      expect(code, err).not.toBe(0);
      expect(err).toContain(`${fifo} is a FIFO (named pipe), not a regular file`);
    }
  });

  it('refuses a tar whose ignored entries carry 8 MB pax path headers within a bounded amount of memory', async () => {
    const entries = [];
    for (let i = 0; i < 12; i++) {
      const name = `junk/${String(i).padStart(2, '0')}-${'p'.repeat(8_000_000)}`;
      entries.push({ header: { name, size: 3, mtime: new Date(0) }, body: 'abc' });
    }
    const p = join(src, 'pax-bomb.tar.gz');
    await writeFile(p, await gzip(await packTar(entries)));
    entries.length = 0;
    const { result, peak } = await peakGrowth(() => importFromPath(p, store));
    expect(result.status).toBe('rejected');
    const e = (result as PromiseRejectedResult).reason as Error;
    expect(e).toBeInstanceOf(TarMetadataTooLargeError);
    expect(e.message).toMatch(/pax-bomb\.tar\.gz: .*more than 4194304 bytes of tar headers .* before the first entry/);
    expect(peak).toBeLessThan(64 * 2 ** 20);
    expect(fdsUnder(src)).toEqual([]);
    expect(snapshot(join(dir, 'store'))).toEqual(before);
  });

  it('still imports an archive with ordinary pax headers, and lists long ignored names shortened', async () => {
    const long = `extra/${'n'.repeat(3000)}`;
    const p = join(src, 'pax-ok.tar.gz');
    await writeFile(p, await makeArchive({ files: makeFiles(4, 3, 2), extra: { [long]: 'x' } }));
    const r = await importFromPath(p, store, { recordsPerChunk: 5 });
    expect(r.ignored).toContain(`${long.slice(0, 256)}... (3006 characters)`);
    expect(fdsUnder(src)).toEqual([]);
  });
});
