// fill: data[offset + i] = value   for i < count
// (Zeroing a whole buffer uses encoder.clearBuffer; this fills a slice with any value.)
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 data    read_write  the buffer to fill
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, offset: u32, value: f32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  data[params.offset + i] = params.value;
}
