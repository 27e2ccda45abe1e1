// cast_bf16_to_f32: dst[d_off + i] = scale * bfloat16 i of src from word s_off (element 2k in the
// low 16 bits of word k). Widening is exact: the bfloat16's bits shifted into the upper half of a
// float32; with scale 1 those bits are stored as they are (subnormals included), else the product
// is rounded once. bf16 gradients back into the float32 gradients the optimizer reads.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 src     read        packed bfloat16, two per u32
//   2 dst     read_write  float32 values (as their bits)
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, s_off: u32, d_off: u32, scale: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  let w = src[params.s_off + i / 2u];
  let bits = select(w << 16u, w & 0xffff0000u, (i & 1u) == 1u);
  var out = bits;
  if (params.scale != 1.0) { out = bitcast<u32>(params.scale * bitcast<f32>(bits)); }
  dst[params.d_off + i] = out;
}
