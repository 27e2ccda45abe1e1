// bf16_round_trip: data[offset + i] = data[offset + i] rounded to a bfloat16 and widened back, for
// i < count, in place on the bits. One worker's bf16 gradients in one pass: what cast_f32_to_bf16
// and cast_bf16_to_f32 (both at scale 1) do through a buffer of bfloat16 pairs, element by element,
// with the same bits: round to nearest even by adding 0x7fff (+1 when the kept part is odd) before
// cutting the low 16 bits (the largest finite values carry into infinity), every NaN becoming the
// quiet NaN 0x7fc00000; subnormals pass as bits (no float arithmetic touches them). Without a ring
// there is nothing to send, so the pairs need not be stored.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 data    read_write  float32 gradients (as their bits)
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, offset: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  let b = data[params.offset + i];
  if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u) {
    data[params.offset + i] = 0x7fc00000u;
    return;
  }
  data[params.offset + i] = ((b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u) << 16u;
}
