// cast_f16_to_f32: dst[d_off + i] = scale * half i of src from word s_off (half 2k in the low 16
// bits of word k, as pack2x16float stores it). unpack2x16float is exact, so with scale 1 this is
// the half's value; with scale 1 / loss_scale it unscales fp16 gradients into the fp32 gradients
// the optimizer reads (one rounding, of the product).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 src     read        packed halves, two per u32
//   2 dst     read_write  float32 values
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, s_off: u32, d_off: u32, scale: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  let pair = unpack2x16float(src[params.s_off + i / 2u]);
  dst[params.d_off + i] = params.scale * select(pair.x, pair.y, (i & 1u) == 1u);
}
