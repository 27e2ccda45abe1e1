// cast_f32_to_bf16: dst[d_off + i] = the bfloat16s of scale * src[s_off + 2i] (low 16 bits) and
// scale * src[s_off + 2i + 1] (high 16 bits); past count the high half is 0.
// WGSL has no bfloat16: a bfloat16 is the upper 16 bits of a float32, rounded to nearest even by
// adding 0x7fff (+1 when the kept part is odd) before the shift, which carries into the kept bits
// exactly when rounding up (and the largest finite values up to infinity); every NaN becomes the
// quiet NaN 0x7fc0. The source is read as bits (array<u32>) and multiplied only when scale is not
// 1, so subnormals pass untouched. bf16 parameter copies, and gradients before the all-reduce.
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 src     read        float32 values (as their bits)
//   2 dst     read_write  packed bfloat16, two per u32
// dispatch: 1-D over ceil(count / 2) words, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, s_off: u32, d_off: u32, scale: f32, run: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

override WG: u32 = 64;

fn bf16_bits(raw: u32) -> u32 {
  var b = raw;
  if (params.scale != 1.0) { b = bitcast<u32>(params.scale * bitcast<f32>(raw)); }
  if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u) { return 0x7fc0u; }
  return ((b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u) & 0xffffu;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  let i = gid.x + gid.y * nwg.x * WG;
  let e = 2u * i;
  if (e >= params.count) { return; }
  let lo = bf16_bits(src[params.s_off + e]);
  var hi = 0u;
  if (e + 1u < params.count) { hi = bf16_bits(src[params.s_off + e + 1u]); }
  dst[params.d_off + i] = lo | (hi << 16u);
}
