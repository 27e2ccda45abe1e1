// The matmul ceilings `webddp bench --profile`'s TFLOP/s compare against, on the GPU that Node's
// Dawn finds: C = A B for square n x n matrices (default 4096) with
//   * fp32: a plain WGSL matmul, 64 x 64 tiles in workgroup memory, 4 x 4 outputs per invocation
//     (the CUDA cores; the form of the float32 kernels);
//   * f16 subgroup matrices: f16 x f16 -> f32 16x16x16 (chromium-experimental-subgroup-matrix, the
//     tensor cores), one subgroup per workgroup with 4 x 4 accumulators, operands loaded straight
//     from storage (the Dawn toggles vulkan_enable_f16_on_nvidia,allow_unsafe_apis are asked for).
// Prints one line per form and one JSON line. Mean of --reps timed dispatches after 3 warm-ups.
//   node bench/matmul-ceiling.mjs [--n 4096] [--reps 20]
/* global console, performance, process, GPUBufferUsage */
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
/** @type {(k: string, d: number) => number} */
const arg = (k, d) => {
  const i = process.argv.indexOf(k);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const n = arg('--n', 4096);
const reps = arg('--reps', 20);
// Keep the GPU object referenced for the whole run (its collection aborts Dawn's threads).
const gpu = create(['enable-dawn-features=vulkan_enable_f16_on_nvidia,allow_unsafe_apis']);
globalThis.webddpKeepGpu = gpu;
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('no adapter');
/** @type {GPUFeatureName[]} */
const want = /** @type {GPUFeatureName[]} */ ([
  'shader-f16',
  'chromium-experimental-subgroup-matrix',
  'subgroups',
]).filter((f) => adapter.features.has(f));
const device = await adapter.requestDevice({
  requiredFeatures: want,
  requiredLimits: {
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
    maxBufferSize: adapter.limits.maxBufferSize,
  },
});

const FP32 = `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
const N: u32 = ${n}u;
var<workgroup> as_: array<f32, 1024>; // 16 k x 64 rows
var<workgroup> bs_: array<f32, 1024>; // 16 k x 64 cols
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let r0 = wid.y * 64u; let c0 = wid.x * 64u;
  var acc: array<vec4f, 4>;
  for (var k0 = 0u; k0 < N; k0 += 16u) {
    for (var t = li; t < 1024u; t += 256u) {
      let kk = t % 16u; let r = t / 16u;
      as_[kk * 64u + r] = a[(r0 + r) * N + k0 + kk];
      let cc = t % 64u; let k2 = t / 64u;
      bs_[k2 * 64u + cc] = b[(k0 + k2) * N + c0 + cc];
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      let bv = vec4f(bs_[kk * 64u + lid.x * 4u], bs_[kk * 64u + lid.x * 4u + 1u], bs_[kk * 64u + lid.x * 4u + 2u], bs_[kk * 64u + lid.x * 4u + 3u]);
      for (var i = 0u; i < 4u; i++) { acc[i] += as_[kk * 64u + lid.y * 4u + i] * bv; }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let row = r0 + lid.y * 4u + i;
    for (var j = 0u; j < 4u; j++) { c[row * N + c0 + lid.x * 4u + j] = acc[i][j]; }
  }
}`;

/** @type {[number, number][]} */
const acc = [];
for (let i = 0; i < 4; i++) for (let q = 0; q < 4; q++) acc.push([i, q]);
const SGMAT = `enable f16;
enable chromium_experimental_subgroup_matrix;
@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
const N: u32 = ${n}u;
@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3u) {
  let r0 = wid.y * 64u; let c0 = wid.x * 64u;
${acc.map(([i, q]) => `  var acc_${i}_${q} = subgroup_matrix_result<f32, 16, 16>();`).join('\n')}
  for (var k0 = 0u; k0 < N; k0 += 16u) {
${[0, 1, 2, 3].map((i) => `    let a${i} = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, (r0 + ${16 * i}u) * N + k0, N);`).join('\n')}
${[0, 1, 2, 3].map((q) => `    let b${q} = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, k0 * N + c0 + ${16 * q}u, N);`).join('\n')}
${acc.map(([i, q]) => `    acc_${i}_${q} = subgroupMatrixMultiplyAccumulate(a${i}, b${q}, acc_${i}_${q});`).join('\n')}
  }
${acc.map(([i, q]) => `  subgroupMatrixStore<row_major>(&c, (r0 + ${16 * i}u) * N + c0 + ${16 * q}u, acc_${i}_${q}, N);`).join('\n')}
}`;

/**
 * Mean ms of one dispatch of `code` over n x n matrices of `bytesPer`-byte elements.
 * @param {string} name
 * @param {string} code
 * @param {number} bytesPer
 * @param {[number, number, number]} wg
 * @returns {Promise<{ name: string, n?: number, ms?: number, tflops?: number, error?: string }>}
 */
async function time(name, code, bytesPer, wg) {
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  const errs = info.messages.filter((m) => m.type === 'error');
  if (errs.length) return { name, error: errs.map((e) => `${e.lineNum}:${e.linePos} ${e.message}`).join('; ') };
  const pipeline = await device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  /** @type {(size: number) => GPUBuffer} */
  const buf = (size) => device.createBuffer({ size, usage: GPUBufferUsage.STORAGE });
  const bufs = [buf(n * n * bytesPer), buf(n * n * bytesPer), buf(n * n * 4)];
  const bg = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: bufs.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
  /** @type {(k: number) => Promise<void>} */
  const run = async (k) => {
    const enc = device.createCommandEncoder();
    for (let i = 0; i < k; i++) {
      const p = enc.beginComputePass();
      p.setPipeline(pipeline);
      p.setBindGroup(0, bg);
      p.dispatchWorkgroups(...wg);
      p.end();
    }
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
  };
  await run(3);
  const t0 = performance.now();
  await run(reps);
  const ms = (performance.now() - t0) / reps;
  for (const b of bufs) b.destroy();
  return { name, n, ms, tflops: (2 * n ** 3) / ms / 1e9 };
}

const rows = [await time('fp32 WGSL matmul (64x64 tiles, 4x4 per invocation)', FP32, 4, [n / 64, n / 64, 1])];
if (device.features.has('chromium-experimental-subgroup-matrix') && device.features.has('shader-f16'))
  rows.push(await time('f16 subgroup matrices 16x16x16 -> f32 (4x4 per subgroup)', SGMAT, 2, [n / 64, n / 64, 1]));
else rows.push({ name: 'f16 subgroup matrices', error: 'the adapter offers no shader-f16 + subgroup matrices' });
for (const r of rows)
  console.log(
    r.error
      ? `${r.name}: ${r.error}`
      : `${r.name}: ${n}^3 in ${(r.ms ?? 0).toFixed(3)} ms, ${(r.tflops ?? 0).toFixed(1)} TFLOP/s`,
  );
console.log(JSON.stringify({ adapter: adapter.info.description, features: want, rows }));
device.destroy();
