// A device on the first high-performance adapter of `gpu` (the `webgpu` package's create()) with one
// small kernel for the dispatch benchmarks (indirect-dispatch.mjs, device-switch.mjs): a[i] += 1
// over a storage buffer of `words` float32, workgroups of 64, its bind group ready.
/* global GPUBufferUsage */

/**
 * @param {GPU} gpu
 * @param {string} label
 * @param {number} words
 */
export async function incrementKernel(gpu, label, words) {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice();
  const code = `@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) { if (g.x < arrayLength(&a)) { a[g.x] += 1.0; } }`;
  const module = device.createShaderModule({ label, code });
  const pipeline = device.createComputePipeline({ label, layout: 'auto', compute: { module, entryPoint: 'main' } });
  const data = device.createBuffer({
    label: `${label}.data`,
    size: words * 4,
    usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
  });
  const bindGroup = device.createBindGroup({
    label,
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: data } }],
  });
  const info = adapter.info;
  return { adapter: `${info.vendor} ${info.description || info.device}`.trim(), device, pipeline, data, bindGroup };
}
