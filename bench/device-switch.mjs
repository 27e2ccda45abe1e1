#!/usr/bin/env node
// What it costs when several WebGPU devices share one GPU, as ranks with their own devices do
// (`webddp train --workers W` without --colocate, and every page): W worker threads, each with its
// own device, each repeating what a DDP rank does once a bucket is ready: a dispatch, a copy of
// `bytes` into a staging buffer, submit, mapAsync, read. Reported per W: the median and 90th
// percentile round trip of one device, and the round trips per second of all devices together.
// With one device per GPU context the round trip is the driver's submit-to-readback latency;
// where W devices take turns on the GPU it shows what the switching adds.
// Usage: node bench/device-switch.mjs [--workers 1,2,4] [--bytes 4096,2180392] [--rounds 200] [--json]
//   (the adapter as for webddp: VK_ICD_FILENAMES / WEBDDP_DAWN_FLAGS are read by Dawn itself)
/* global console, process, performance, setTimeout, GPUBufferUsage, GPUMapMode */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { incrementKernel } from './increment-kernel.mjs';

/** @typedef {{ rounds: number, bytes: number, gate: SharedArrayBuffer, count: number }} Job */
/** @typedef {{ times: number[], wallMs: number, adapter: string }} Result */

if (isMainThread) await main();
// eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- workerData is the Job main() posts
else await rank(/** @type {Job} */ (workerData));

async function main() {
  const args = process.argv.slice(2);
  /** @param {string} name @param {string} fallback */
  const flag = (name, fallback) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
  };
  const workers = flag('workers', '1,2,4').split(',').map(Number);
  const sizes = flag('bytes', '4096,2180392').split(',').map(Number);
  const rounds = Number(flag('rounds', '200'));
  const json = args.includes('--json');
  /** @type {{ devices: number, bytes: number, median_ms: number, p90_ms: number, per_s_all: number, adapter: string }[]} */
  const rows = [];
  for (const bytes of sizes) {
    for (const count of workers) {
      const gate = new SharedArrayBuffer(8);
      const results = await Promise.all(
        Array.from(
          { length: count },
          () =>
            /** @type {Promise<Result>} */ (
              new Promise((resolve, reject) => {
                const w = new Worker(fileURLToPath(import.meta.url), { workerData: { rounds, bytes, gate, count } });
                w.once('message', resolve);
                w.once('error', reject);
              })
            ),
        ),
      );
      const all = results.flatMap((r) => r.times).sort((a, b) => a - b);
      const wall = Math.max(...results.map((r) => r.wallMs));
      rows.push({
        devices: count,
        bytes,
        median_ms: all[all.length >> 1] ?? NaN,
        p90_ms: all[Math.floor(all.length * 0.9)] ?? NaN,
        per_s_all: (count * rounds * 1000) / wall,
        adapter: results[0]?.adapter ?? '',
      });
    }
  }
  if (json) {
    console.log(JSON.stringify({ rounds, rows }));
    return;
  }
  console.log(`adapter: ${rows[0]?.adapter ?? '?'}; ${rounds} round trips per device after 10 warm-up`);
  console.log('devices     bytes  median ms  p90 ms  round trips/s (all devices)');
  for (const r of rows)
    console.log(
      `${String(r.devices).padStart(7)} ${String(r.bytes).padStart(9)} ${r.median_ms.toFixed(3).padStart(10)} ${r.p90_ms.toFixed(3).padStart(7)} ${r.per_s_all.toFixed(0).padStart(12)}`,
    );
}

/** @param {Job} job */
async function rank(job) {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create([]);
  const words = Math.max(1, Math.ceil(job.bytes / 4));
  const { adapter, device, pipeline, data, bindGroup } = await incrementKernel(gpu, 'device-switch', words);
  const staging = device.createBuffer({
    label: 'device-switch.staging',
    size: words * 4,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const roundTrip = async () => {
    const enc = device.createCommandEncoder({ label: 'device-switch' });
    const pass = enc.beginComputePass({ label: 'device-switch' });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(Math.ceil(words / 64));
    pass.end();
    enc.copyBufferToBuffer(data, 0, staging, 0, words * 4);
    device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    new Float32Array(staging.getMappedRange()).at(-1);
    staging.unmap();
  };
  for (let i = 0; i < 10; i++) await roundTrip();
  // every device starts its timed rounds together
  const gate = new Int32Array(job.gate);
  Atomics.add(gate, 0, 1);
  while (Atomics.load(gate, 0) < job.count) await new Promise((r) => setTimeout(r, 1));
  /** @type {number[]} */
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < job.rounds; i++) {
    const t = performance.now();
    await roundTrip();
    times.push(performance.now() - t);
  }
  const wallMs = performance.now() - t0;
  device.destroy();
  parentPort?.postMessage(/** @type {Result} */ ({ times, wallMs, adapter }));
}
