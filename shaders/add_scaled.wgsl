// add_scaled: dst[d_off + i] += alpha * src[s_off + i]
// DataParallel's device 0 reduce-adds each replica's gradients into its own with alpha = 1.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 src     read        source
//   2 dst     read_write  destination
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, s_off: u32, d_off: u32, alpha: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  dst[params.d_off + i] = fma(params.alpha, src[params.s_off + i], dst[params.d_off + i]);
}
