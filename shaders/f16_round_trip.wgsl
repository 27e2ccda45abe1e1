// f16_round_trip: data[offset + i] = scale * (data[offset + i] rounded to a half), for i < count,
// and flag[0] |= 1 where that half is infinite or NaN. One worker's fp16 gradients in one pass:
// what cast_f32_to_f16 (scale 1), f16_overflow and cast_f16_to_f32 (scale 1 / loss scale) do
// through a buffer of halves, element by element, with the same roundings: the half as
// cast_f32_to_f16 makes it (round to nearest even, +-infinity from 65520 up, NaN to the quiet NaN),
// then one rounding, of the product. Without a ring there is nothing to send, so the halves need
// not be stored. `half_bits` is cast_f32_to_f16.wgsl's, appended when the kernel is built
// (src/gpu/shader-sources.ts), so that both convert by one definition.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 data    read_write  float32 gradients
//   2 flag    read_write  [1] u32, or-ed
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, offset: u32, scale: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;
@group(0) @binding(2) var<storage, read_write> flag: array<atomic<u32>>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  let h = half_bits(data[params.offset + i]);
  if ((h & 0x7c00u) == 0x7c00u) { atomicOr(&flag[0], 1u); }
  data[params.offset + i] = params.scale * unpack2x16float(h).x;
}
