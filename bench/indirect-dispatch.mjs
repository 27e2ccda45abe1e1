#!/usr/bin/env node
// What one dispatchWorkgroupsIndirect costs against dispatchWorkgroups on this adapter (Dawn in
// Node): N dispatches of a small kernel in one pass, host time to record and submit, and device
// time from submit to a 4-byte readback settling; the median of 7 after a warm-up. Dawn validates
// every indirect dispatch with an internal dispatch of its own, which is why the fp16 loss scaler's
// gated optimizer reads a `run` word from its Params instead (src/gpu/recorder.ts, DispatchGate).
// Usage: node bench/indirect-dispatch.mjs [--json] [dawn toggle ...]   (WEBDDP_ADAPTER / VK_ICD_FILENAMES as for webddp)
/* global console, process, performance, GPUBufferUsage, GPUMapMode */
import { create, globals } from 'webgpu';
import { incrementKernel } from './increment-kernel.mjs';

Object.assign(globalThis, globals);
const args = process.argv.slice(2);
const json = args.includes('--json');
const gpu = create(args.filter((a) => a !== '--json'));
const { adapter: name, device, pipeline, data, bindGroup } = await incrementKernel(gpu, 'indirect.bench', 64 * 64);
const indirect = device.createBuffer({
  label: 'indirect.args',
  size: 16,
  usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST,
});
device.queue.writeBuffer(indirect, 0, Uint32Array.of(64, 1, 1, 0));
const staging = device.createBuffer({
  label: 'indirect.staging',
  size: 4,
  usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
});
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
/** @type {{ form: string, dispatches: number, host_ms: number, submit_to_readback_ms: number }[]} */
const rows = [];
for (const form of ['direct', 'indirect']) {
  for (const n of [2, 16]) {
    /** @type {number[]} */
    const host = [];
    /** @type {number[]} */
    const total = [];
    for (let rep = 0; rep < 8; rep++) {
      const t0 = performance.now();
      const enc = device.createCommandEncoder({ label: 'indirect.bench' });
      const pass = enc.beginComputePass({ label: 'indirect.bench' });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      for (let i = 0; i < n; i++) {
        if (form === 'direct') pass.dispatchWorkgroups(64);
        else pass.dispatchWorkgroupsIndirect(indirect, 0);
      }
      pass.end();
      enc.copyBufferToBuffer(data, 0, staging, 0, 4);
      device.queue.submit([enc.finish()]);
      const t1 = performance.now();
      await staging.mapAsync(GPUMapMode.READ);
      staging.unmap();
      const t2 = performance.now();
      if (rep > 0) {
        host.push(t1 - t0);
        total.push(t2 - t0);
      }
    }
    rows.push({ form, dispatches: n, host_ms: median(host), submit_to_readback_ms: median(total) });
  }
}
const out = { adapter: name, rows };
if (json) console.log(JSON.stringify(out));
else {
  console.log(`adapter: ${out.adapter}`);
  console.log('form      dispatches  host ms  submit to readback ms  per dispatch ms');
  for (const r of rows)
    console.log(
      `${r.form.padEnd(9)} ${String(r.dispatches).padStart(10)} ${r.host_ms.toFixed(3).padStart(8)} ${r.submit_to_readback_ms.toFixed(3).padStart(22)} ${(r.submit_to_readback_ms / r.dispatches).toFixed(3).padStart(16)}`,
    );
}
device.destroy();
process.exit(0);
