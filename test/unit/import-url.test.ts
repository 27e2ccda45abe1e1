// importFromUrl against a real local HTTP server (node:http): a good download, an HTTP 404, a
// connection dropped before any response, one dropped mid-body, and a refused connection.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataset } from '../../src/data/dataset.ts';
import { HttpStatusError, NetworkError } from '../../src/data/errors.ts';
import { importFromUrl } from '../../src/data/import.ts';
import type { ImportProgress } from '../../src/data/import-types.ts';
import type { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { useTempStore } from '../helpers/temp-store.ts';
import { makeArchive, makeFiles } from '../helpers/cifar-fixture.ts';

let server: Server;
let base: string;
let archive: Uint8Array;

beforeAll(async () => {
  archive = await makeArchive({ files: makeFiles(12, 7, 4) });
  server = createServer((req, res) => {
    if (req.url === '/cifar-10-binary.tar.gz') {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.byteLength });
      res.end(archive);
    } else if (req.url === '/drop-before') {
      req.socket.destroy();
    } else if (req.url === '/drop-mid') {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.byteLength });
      res.write(archive.subarray(0, archive.byteLength >> 1), () => setTimeout(() => req.socket.destroy(), 20));
    } else {
      res.writeHead(404, 'Not Found', { 'content-type': 'text/plain' });
      res.end('no such file');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

let store: FileDatasetStore;
useTempStore('webddp-url-', (_dir, s) => {
  store = s;
});

describe('importFromUrl', { timeout: 60_000 }, () => {
  it('downloads and imports, reporting Content-Length as the total', async () => {
    const seen: ImportProgress[] = [];
    const r = await importFromUrl(`${base}/cifar-10-binary.tar.gz`, store, { onProgress: (p) => seen.push(p) });
    expect(r.manifest.source.kind).toBe('url');
    expect(r.manifest.splits.train.records).toBe(60);
    expect(seen.at(-1)).toMatchObject({ phase: 'done', bytesRead: archive.byteLength, totalBytes: archive.byteLength });
  });

  it('an HTTP 404 is an HttpStatusError naming the URL and status; the stored dataset is untouched', async () => {
    const good = await importFromUrl(`${base}/cifar-10-binary.tar.gz`, store);
    const err = await importFromUrl(`${base}/missing.tar.gz`, store).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect((err as HttpStatusError).status).toBe(404);
    expect((err as Error).message).toBe(`GET ${base}/missing.tar.gz failed: HTTP 404 Not Found`);
    expect((await openDataset(store, 'cifar10')).manifest).toEqual(good.manifest);
  });

  it('a connection dropped before the response is a NetworkError', async () => {
    const err = await importFromUrl(`${base}/drop-before`, store).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toMatch(new RegExp(`^GET ${base}/drop-before failed: network error`));
  });

  it('a connection dropped mid-download is a NetworkError after some bytes, and leaves the old dataset', async () => {
    const good = await importFromUrl(`${base}/cifar-10-binary.tar.gz`, store);
    const err = await importFromUrl(`${base}/drop-mid`, store).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).bytesRead).toBeGreaterThan(0);
    expect((err as Error).message).toMatch(/failed after \d+ bytes: network error/);
    const ds = await openDataset(store, 'cifar10');
    expect(ds.manifest).toEqual(good.manifest);
    await ds.verify();
  });

  it('a refused connection is a NetworkError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(importFromUrl(`http://127.0.0.1:${port}/x.tar.gz`, store)).rejects.toThrow(NetworkError);
  });
});
