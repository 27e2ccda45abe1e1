// grad_norm (stage 1 of 2): partial sums of squares of a slice of the flat gradients.
//   partial[wg] = sum of g[off + i]^2 over the elements workgroup wg visits
// The squared global 2-norm is the sum of the partials; per-tensor norms combined as a norm of
// norms (what clip_grad_norm_ computes) give the same value up to rounding. clip_coef.wgsl
// finishes the reduction.
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 grad     read        flat gradients
//   2 partial  read_write  [num_workgroups.x] one sum per workgroup
// dispatch: (G, 1, 1) for a fixed G (the host's choice); workgroup w strides over the slice

struct Params { count: u32, offset: u32, run: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;

override WG: u32 = 64;
var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_index) lid: u32,
        @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  var s = 0.0;
  for (var i = gid.x; i < params.count; i += nwg.x * WG) {
    let g = grad[params.offset + i];
    s = fma(g, g, s);
  }
  sums[lid] = s;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) { sums[lid] += sums[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) { partial[wid.x] = sums[0]; }
}
