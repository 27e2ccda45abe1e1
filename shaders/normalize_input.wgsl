// normalize_input: x[i] = (bytes[i] / 255 - mean[c]) / stdev[c]   (ToTensor then Normalize)
// Unpacks uint8 CIFAR pixels (NCHW, four per u32, little-endian) and normalises them per channel
// on the GPU, so a batch crosses the bus as bytes, a quarter of its float size.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 bytes   read        [ceil(N*C*HW / 4)] u32, four pixels each
//   2 x       read_write  [N, C, H, W] f32
// dispatch: 1-D over ceil(count / 4) words, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, c: u32, hw: u32, pad: u32, mean: vec4f, stdev: vec4f }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bytes: array<u32>;
@group(0) @binding(2) var<storage, read_write> x: array<f32>;

override WG: u32 = 64;

// Stores the first n (1 or 2) of v at x[i], x[i + 1]: the only write of x, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn x_store2(i: u32, v: vec2f, n: u32) {
  x[i] = v.x;
  if (n > 1u) { x[i + 1u] = v.y; }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let word = gid.x + gid.y * nwg.x * WG;
  if (word * 4u >= params.count) { return; }
  let packed = bytes[word];
  let i0 = word * 4u;
  var v = vec4f(0.0);
  for (var k = 0u; k < 4u; k++) {
    let c = ((i0 + k) / params.hw) % params.c;
    v[k] = (f32((packed >> (8u * k)) & 0xffu) / 255.0 - params.mean[c]) / params.stdev[c];
  }
  x_store2(i0, v.xy, min(params.count - i0, 2u));
  if (i0 + 2u < params.count) { x_store2(i0 + 2u, v.zw, min(params.count - i0 - 2u, 2u)); }
}
