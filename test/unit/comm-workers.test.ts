// Both links (MessagePort messages, shared-memory rings) across real worker_threads (one rank per
// thread, as in the trainer) give the reference bits for W = 2 and 4; a terminated worker fails the others without waiting for
// the timeout. Workers run src/comm bundled by vite (TS cannot run in a
// worker thread here); the bundle is built once in beforeAll.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TransferListItem } from 'node:worker_threads';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRingPorts } from '../../src/comm/index.ts';
import type { Transport } from '../../src/comm/index.ts';
import { baiduOrderSum, firstBitDiff, randomFloats } from './comm-harness.ts';

/** Worker body: plain JS (eval'd, CommonJS), imports the bundle, runs the job it is sent. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.bundleUrl).then((comm) => {
  parentPort.once('message', async (job) => {
    const { rank, world, ports, inputs, cases } = job;
    try {
      const opts = { rank, world, timeoutMs: job.timeoutMs, maxMessageElems: 4096 };
      const link = comm.createLink(opts, ports);
      if (link.transport !== job.transport) throw new Error('link on ' + link.transport + ', asked for ' + job.transport);
      parentPort.postMessage({ ready: true });
      if (job.idle) return;
      const results = [];
      for (const [i, c] of cases.entries()) {
        const x = inputs[i];
        const ar = x.slice(), rs = x.slice(), bc = x.slice();
        const o = { sliceElems: c.sliceElems };
        await comm.ringAllReduce(ar, rank, world, link, o);
        await comm.reduceScatter(rs, rank, world, link, o);
        await comm.allGather(rs, rank, world, link, o);
        await comm.broadcast(bc, world - 1, rank, world, link, o);
        const sc = await comm.allReduceScalars([rank + 0.1, rank % 2 ? -1e16 : 1e16], rank, world, link);
        results.push({ ar, rs, bc, sc: Array.from(sc) });
      }
      await comm.barrier(rank, world, link);
      link.close();
      parentPort.postMessage({ results });
    } catch (e) {
      parentPort.postMessage({ error: String(e) });
    }
  });
  parentPort.postMessage({ loaded: true });
}, (e) => parentPort.postMessage({ error: String(e) }));
`;

interface CaseResult {
  ar: Float32Array;
  rs: Float32Array;
  bc: Float32Array;
  sc: number[];
}
type Reply = { loaded?: true; ready?: true; results?: CaseResult[]; error?: string };

let dir = '';
let bundleUrl = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webddp-comm-'));
  await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      lib: { entry: join(import.meta.dirname, '../../src/comm/index.ts'), formats: ['es'], fileName: () => 'comm.mjs' },
      outDir: dir,
      minify: false,
      write: true,
      emptyOutDir: true,
    },
  });
  bundleUrl = pathToFileURL(join(dir, 'comm.mjs')).href;
}, 60_000);

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the next message of `w` that has `key`; rejects on an error message, a worker error or exit. */
function next(w: Worker, key: keyof Reply): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const onMsg = (m: Reply): void => {
      if (m.error !== undefined) return done(() => reject(new Error(m.error)));
      if (m[key] !== undefined) done(() => resolve(m));
    };
    const onErr = (e: Error): void => done(() => reject(e));
    const onExit = (code: number): void => done(() => reject(new Error(`worker exited with ${code}`)));
    const done = (f: () => void): void => {
      w.off('message', onMsg).off('error', onErr).off('exit', onExit);
      f();
    };
    w.on('message', onMsg).on('error', onErr).on('exit', onExit);
  });
}

interface Job {
  transport: Transport;
  world: number;
  idleRank?: number;
  timeoutMs: number;
}

const CASES = [
  { n: 10_007, sliceElems: 512 },
  { n: 545_098, sliceElems: 4096 },
];

/** Spawns W workers, wires the ring, runs the job; resolves with the workers and each rank's reply promise. */
async function launch(job: Job): Promise<{ workers: Worker[]; replies: Promise<Reply>[] }> {
  const workers = Array.from(
    { length: job.world },
    () => new Worker(WORKER_SOURCE, { eval: true, workerData: { bundleUrl } }),
  );
  await Promise.all(workers.map((w) => next(w, 'loaded')));
  const ports = createRingPorts(job.world, job.transport);
  const ready = workers.map((w) => next(w, 'ready'));
  workers.forEach((w, rank) => {
    const inputs = CASES.map((c) => randomFloats(c.n, 100 * rank + c.n));
    const p = ports[rank];
    if (p === undefined) throw new Error('no ports');
    const msg = {
      rank,
      world: job.world,
      ports: p,
      inputs,
      cases: CASES,
      idle: rank === job.idleRank,
      transport: job.transport,
      timeoutMs: job.timeoutMs,
    };
    // the global (web) MessagePort is what worker_threads transfers; only the typings differ
    w.postMessage(msg, [p.next, p.prev] as unknown as TransferListItem[]);
  });
  await Promise.all(ready);
  return { workers, replies: workers.map((w) => next(w, 'results')) };
}

async function runAll(job: Job): Promise<CaseResult[][]> {
  const { workers, replies } = await launch(job);
  try {
    return (await Promise.all(replies)).map((r) => r.results ?? []);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

for (const transport of ['message', 'shared'] as const)
  describe(`${transport} links across worker_threads`, () => {
    for (const world of [2, 4]) {
      it(`W=${world}: every collective gives the reference bits on every rank`, async () => {
        const results = await runAll({ transport, world, timeoutMs: 30_000 });
        CASES.forEach((c, i) => {
          const inputs = Array.from({ length: world }, (_, r) => randomFloats(c.n, 100 * r + c.n));
          const wantAr = baiduOrderSum(inputs);
          const wantRs = baiduOrderSum(inputs, 1);
          const wantBc = inputs[world - 1] ?? new Float32Array();
          for (let r = 0; r < world; r++) {
            const got = results[r]?.[i];
            if (got === undefined) throw new Error(`no result for rank ${r} case ${i}`);
            expect(firstBitDiff(got.ar, wantAr), `allReduce n=${c.n} rank ${r}`).toBe(-1);
            expect(firstBitDiff(got.rs, wantRs), `reduceScatter+allGather n=${c.n} rank ${r}`).toBe(-1);
            expect(firstBitDiff(got.bc, wantBc), `broadcast n=${c.n} rank ${r}`).toBe(-1);
            expect(got.sc).toEqual(results[0]?.[i]?.sc);
          }
        });
      }, 120_000);
    }

    it('terminating worker 2 mid-all-reduce fails ranks 0, 1, 3 naming rank 2, well before the timeout', async () => {
      const t0 = performance.now();
      const { workers, replies } = await launch({ transport, world: 4, idleRank: 2, timeoutMs: 60_000 });
      const settled = Promise.allSettled(replies);
      await workers[2]?.terminate();
      const outcomes = await settled;
      await Promise.all(workers.map((w) => w.terminate()));
      for (const r of [0, 1, 3]) {
        const o = outcomes[r];
        expect(o?.status).toBe('rejected');
        expect(String(o?.status === 'rejected' ? o.reason : '')).toMatch(/rank 2 failed/);
      }
      expect(performance.now() - t0).toBeLessThan(30_000);
    }, 60_000);
  });
