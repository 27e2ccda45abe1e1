// softmax_xent_backward: dz[n,c] = (softmax(z[n,:])[c] - (c == y[n])) * scale
// The gradient of the mean cross-entropy: scale = 1/N for the local batch; DataParallel's device 0
// passes 1/(global batch) for the chunk it scatters back.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 logits  read        [N, C]
//   2 labels  read        [N] i32
//   3 dz      read_write  [N, C] (written, not accumulated)
// dispatch: 1-D over N * C, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { n: u32, c: u32, scale: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<i32>;
@group(0) @binding(3) var<storage, read_write> dz: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.n * params.c) { return; }
  let n = i / params.c;
  let c = i % params.c;
  let row = n * params.c;
  var m = logits[row];
  for (var k = 1u; k < params.c; k++) { m = max(m, logits[row + k]); }
  var s = 0.0;
  for (var k = 0u; k < params.c; k++) { s += exp(logits[row + k] - m); }
  var p = exp(logits[i] - m) / s;
  if (u32(labels[n]) == c) { p -= 1.0; }
  dz[i] = p * params.scale;
}
