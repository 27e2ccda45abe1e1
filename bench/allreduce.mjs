// Ring all-reduce benchmark: W real worker_threads (one rank each) all-reduce a Float32Array
// over links of each transport asked for (--transports message,shared: MessagePort messages,
// SharedArrayBuffer rings; default both) and report time, algbw and busbw (nccl-tests definitions)
// next to a single-thread memcpy (TypedArray.set) of the same size. It runs the real src/comm code: at start it bundles
// src/comm/index.ts with vite (a devDependency) into a temporary directory; the workers import it.
//
//   node bench/allreduce.mjs                 # all sizes, W = 2, 4, 8, slice sweep
//   node bench/allreduce.mjs --quick         # fewer sizes, no sweep
//   node bench/allreduce.mjs --json out.json # also write the JSON to a file
//   node bench/allreduce.mjs --worlds 2 --sizes 2180392,16777216 --no-sweep   # a subset
//   node bench/allreduce.mjs --bundle comm.mjs   # use a prebuilt bundle of src/comm/index.ts (no vite
//                                                # needed: for a GPU machine without npm packages)
//
// Each measurement: a correctness pass (integer inputs; #wrong counts elements that differ from
// the exact sum, over all ranks), 20 warm-up all-reduces (the JIT needs them), then N timed
// back-to-back all-reduces (N for ~1 s, or BENCH_TARGET_MS, agreed through the ring, 10..1000).
// An iteration's time is its slowest rank's; the table gives the median (algbw/busbw use it) and
// the mean over iterations. With more ranks than cores, times measure the OS scheduler as much
// as the transport: every ring step needs every rank to run.
/* global console, performance, process */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** @typedef {typeof import('../src/comm/index.ts')} Comm */
/** @typedef {{ world: number, sliceElems: number, transport: import('../src/comm/index.ts').Transport }} Config */
/** @typedef {{ rank: number, ports: import('../src/comm/index.ts').RingPorts } & Config} InitMsg */
/** @typedef {{ rank: number, wrong: number, times: number[] }} RunReply */
/** @typedef {{ section: string, transport: string, world: number, bytes: number, sliceBytes: number, ms: number, meanMs: number, iters: number, algbwGBs: number, busbwGBs: number, memcpyMs: number, memcpyGBs: number, wrong: number }} Row */

const SIMPLECNN_BYTES = 2_180_392;

async function main() {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  /** @param {string} flag @returns {number[] | undefined} */
  const list = (flag) => {
    const at = args.indexOf(flag);
    return at >= 0 ? (args[at + 1] ?? '').split(',').map(Number) : undefined;
  };
  const sweep = !quick && !args.includes('--no-sweep');
  const jsonAt = args.indexOf('--json');
  const jsonPath = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'webddp-bench-'));
  try {
    const bundleAt = args.indexOf('--bundle');
    let bundleUrl;
    if (bundleAt >= 0) {
      bundleUrl = pathToFileURL(args[bundleAt + 1] ?? '').href;
    } else {
      const { build } = await import('vite');
      const entry = join(import.meta.dirname, '../src/comm/index.ts');
      await build({
        configFile: false,
        logLevel: 'silent',
        build: {
          lib: { entry, formats: ['es'], fileName: () => 'comm.mjs' },
          outDir: dir,
          minify: false,
          write: true,
          emptyOutDir: true,
        },
      });
      bundleUrl = pathToFileURL(join(dir, 'comm.mjs')).href;
    }
    const comm = await loadComm(bundleUrl);
    const sizes = list('--sizes') ?? (quick ? [SIMPLECNN_BYTES] : [4096, 262_144, SIMPLECNN_BYTES, 16 * 2 ** 20]);
    const worlds = list('--worlds') ?? [2, 4, 8];
    const tAt = args.indexOf('--transports');
    const transports = /** @type {import('../src/comm/index.ts').Transport[]} */ (
      tAt >= 0 ? (args[tAt + 1] ?? '').split(',') : ['message', 'shared']
    );
    const defaultSlice = comm.DEFAULT_SLICE_ELEMS;
    /** @type {Row[]} */
    const rows = [];
    /** @type {{ section: string, cfg: Config, sizes: number[] }[]} */
    const plan = [];
    for (const transport of transports)
      for (const world of worlds)
        plan.push({ section: 'main', cfg: { world, sliceElems: defaultSlice, transport }, sizes });
    if (sweep) {
      for (const sliceElems of [16_384, 65_536, 262_144, 1_048_576]) {
        if (sliceElems !== defaultSlice)
          plan.push({
            section: 'slice-sweep',
            cfg: { world: 4, sliceElems, transport: 'message' },
            sizes: [SIMPLECNN_BYTES, 16 * 2 ** 20],
          });
      }
    }
    for (const { section, cfg, sizes: sz } of plan) {
      for (const r of await runConfig(comm, bundleUrl, cfg, sz)) {
        const bw = comm.bandwidth('allReduce', r.bytes, r.ms / 1e3, cfg.world);
        const mc = memcpy(r.bytes);
        rows.push({
          section,
          transport: cfg.transport,
          world: cfg.world,
          bytes: r.bytes,
          sliceBytes: cfg.sliceElems * 4,
          ms: r.ms,
          meanMs: r.meanMs,
          iters: r.iters,
          algbwGBs: bw.algbwGBs,
          busbwGBs: bw.busbwGBs,
          memcpyMs: mc.ms,
          memcpyGBs: mc.gbs,
          wrong: r.wrong,
        });
        printRow(rows.at(-1));
      }
    }
    const os = await import('node:os');
    const doc = {
      bench: 'allreduce',
      node: process.version,
      cpus: os.cpus().length,
      loadavg: os.loadavg(),
      defaultSliceBytes: defaultSlice * 4,
      rows,
    };
    console.log(JSON.stringify(doc));
    if (jsonPath !== undefined) writeFileSync(jsonPath, JSON.stringify(doc, null, 2));
    if (rows.some((r) => r.wrong !== 0)) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let headerPrinted = false;
/** @param {Row | undefined} r */
function printRow(r) {
  if (r === undefined) return;
  if (!headerPrinted) {
    console.log(
      [
        'section',
        'transport',
        'W',
        'bytes',
        'slice',
        'median ms',
        'mean ms',
        'algbw GB/s',
        'busbw GB/s',
        'memcpy ms',
        'memcpy GB/s',
        '#wrong',
      ]
        .map((h) => h.padStart(12))
        .join(''),
    );
    headerPrinted = true;
  }
  const cells = [
    r.section,
    r.transport,
    r.world,
    r.bytes,
    r.sliceBytes,
    r.ms.toFixed(3),
    r.meanMs.toFixed(3),
    r.algbwGBs.toFixed(2),
    r.busbwGBs.toFixed(2),
    r.memcpyMs.toFixed(3),
    r.memcpyGBs.toFixed(2),
    r.wrong,
  ];
  console.log(cells.map((c) => String(c).padStart(12)).join(''));
}

/** Single-thread memcpy of `bytes` with TypedArray.set: mean ms over >= 0.1 s of repeats. @param {number} bytes */
function memcpy(bytes) {
  const a = new Float32Array(bytes / 4).fill(1);
  const b = new Float32Array(bytes / 4);
  for (let i = 0; i < 5; i++) b.set(a);
  let reps = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 100 || reps < 10) {
    b.set(a);
    reps++;
  }
  const ms = (performance.now() - t0) / reps;
  return { ms, gbs: bytes / (ms / 1e3) / 1e9 };
}

/**
 * Spawns `cfg.world` workers, wires the ring, runs every size, closes.
 * @param {Comm} comm @param {string} bundleUrl @param {Config} cfg @param {number[]} sizes
 * @returns {Promise<{ bytes: number, ms: number, meanMs: number, iters: number, wrong: number }[]>}
 */
async function runConfig(comm, bundleUrl, cfg, sizes) {
  const workers = Array.from(
    { length: cfg.world },
    () => new Worker(new URL(import.meta.url), { workerData: { bundleUrl } }),
  );
  try {
    const ports = comm.createRingPorts(cfg.world, cfg.transport);
    await Promise.all(
      workers.map((w, rank) => {
        const p = ports[rank];
        if (p === undefined) throw new Error('no ports');
        /** @type {InitMsg} */
        const init = { ...cfg, rank, ports: p };
        w.postMessage(
          init,
          /** @type {import('node:worker_threads').TransferListItem[]} */ (/** @type {unknown} */ ([p.next, p.prev])),
        );
        return reply(w);
      }),
    );
    const out = [];
    for (const bytes of sizes) {
      const replies = /** @type {RunReply[]} */ (
        await Promise.all(workers.map((w) => (w.postMessage({ bytes }), reply(w))))
      );
      // iteration k took as long as its slowest rank; report the median and the mean over iterations
      const iters = replies[0]?.times.length ?? 0;
      const perIter = Array.from({ length: iters }, (_, k) => Math.max(...replies.map((r) => r.times[k] ?? 0))).sort(
        (a, b) => a - b,
      );
      const ms = perIter[Math.floor(iters / 2)] ?? NaN;
      const meanMs = perIter.reduce((a, b) => a + b, 0) / iters;
      out.push({ bytes, ms, meanMs, iters, wrong: replies.reduce((s, r) => s + r.wrong, 0) });
    }
    return out;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Next message from a worker; rejects on its error report, error or exit. @param {Worker} w @returns {Promise<unknown>} */
function reply(w) {
  return new Promise((resolve, reject) => {
    /** @param {unknown} m */
    const onMsg = (m) => {
      off();
      const err = /** @type {{ error?: string }} */ (m).error;
      if (err === undefined) resolve(m);
      else reject(new Error(err));
    };
    /** @param {Error} e */
    const onErr = (e) => (off(), reject(e));
    /** @param {number} c */
    const onExit = (c) => (off(), reject(new Error(`worker exited with ${c}`)));
    const off = () => w.off('message', onMsg).off('error', onErr).off('exit', onExit);
    w.on('message', onMsg).on('error', onErr).on('exit', onExit);
  });
}

async function worker() {
  const port = parentPort;
  if (port === null) throw new Error('not a worker');
  const comm = await loadComm(bundleUrlOf(workerData));
  /** @type {Promise<InitMsg>} */
  const first = new Promise((resolve) => port.once('message', resolve));
  const init = await first;
  const { rank, world } = init;
  const opts = {
    rank,
    world,
    timeoutMs: 60_000,
    maxMessageElems: init.sliceElems,
  };
  try {
    const link = comm.createLink(opts, init.ports);
    const o = { sliceElems: init.sliceElems };
    port.postMessage({ ready: true });
    port.on('message', (/** @type {{ bytes: number }} */ { bytes }) => {
      void (async () => {
        const n = bytes / 4;
        // correctness pass (nccl-tests style): small integers, exact in any order
        const x = new Float32Array(n);
        for (let i = 0; i < n; i++) x[i] = ((rank + 1) * (i % 97)) % 1021;
        await comm.ringAllReduce(x, rank, world, link, o);
        const want = Array.from({ length: 97 }, (_, k) => sumAt(k, world));
        let wrong = 0;
        for (let i = 0; i < n; i++) if (x[i] !== want[i % 97]) wrong++;
        // timing: warm-up, agree on an iteration count, then back-to-back all-reduces (zeros: the
        // values stay finite and normal whatever the count; float adds cost the same for any normal value)
        const data = new Float32Array(n);
        for (let i = 0; i < 10; i++) await comm.ringAllReduce(data, rank, world, link, o);
        let t = performance.now();
        for (let i = 0; i < 10; i++) await comm.ringAllReduce(data, rank, world, link, o);
        const [sum = 0] = await comm.allReduceScalars([(performance.now() - t) / 10], rank, world, link);
        const iters = Math.max(
          10,
          Math.min(1000, Math.round(Number(process.env.BENCH_TARGET_MS ?? 1000) / Math.max(sum / world, 1e-3))),
        );
        await comm.barrier(rank, world, link);
        const times = [];
        for (let i = 0; i < iters; i++) {
          t = performance.now();
          await comm.ringAllReduce(data, rank, world, link, o);
          times.push(performance.now() - t);
        }
        port.postMessage({ rank, wrong, times });
      })().catch((/** @type {unknown} */ e) => port.postMessage({ error: String(e) }));
    });
  } catch (e) {
    port.postMessage({ error: String(e) });
  }
}

/** The bundle URL the main thread passed. @param {unknown} data @returns {string} */
function bundleUrlOf(data) {
  const url = typeof data === 'object' && data !== null && 'bundleUrl' in data ? data.bundleUrl : undefined;
  if (typeof url !== 'string') throw new Error('workerData.bundleUrl missing');
  return url;
}

/** Imports the bundled src/comm/index.ts. @param {string} url @returns {Promise<Comm>} */
function loadComm(url) {
  return import(url);
}

/** Exact sum over ranks of ((r+1)(i % 97)) % 1021. @param {number} i @param {number} world */
function sumAt(i, world) {
  let s = 0;
  for (let r = 0; r < world; r++) s += ((r + 1) * (i % 97)) % 1021;
  return s;
}

if (isMainThread) await main();
else await worker();
