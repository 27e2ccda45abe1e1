// scale: data[offset + i] *= factor[factor_index]
// The factor lives in a storage buffer so the GPU can compute it (clip_coef writes the clipping
// coefficient there); DDP writes 1/world there once to pre-divide gradients before the all-reduce.
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 factor  read        [k] factors
//   2 data    read_write  the buffer to scale
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, offset: u32, factor_index: u32, run: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> factor: array<f32>;
@group(0) @binding(2) var<storage, read_write> data: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  data[params.offset + i] *= factor[params.factor_index];
}
