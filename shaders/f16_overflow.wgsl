// f16_overflow: flag[0] |= 1 when any of the count halves of data from word offset is infinite
// or NaN (exponent bits all ones), DeepSpeed's has_overflow over the fp16 gradients. The flag is
// cleared before and read back after; bit tests, because a float comparison may assume no NaN.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 data    read        packed halves, two per u32
//   2 flag    read_write  [1] u32, or-ed
// dispatch: 1-D over ceil(count / 2) words, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, offset: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> flag: array<atomic<u32>>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (2u * i >= params.count) { return; }
  let w = data[params.offset + i];
  var bad = (w & 0x7c00u) == 0x7c00u;
  if (2u * i + 1u < params.count) { bad = bad || ((w & 0x7c000000u) == 0x7c000000u); }
  if (bad) { atomicOr(&flag[0], 1u); }
}
