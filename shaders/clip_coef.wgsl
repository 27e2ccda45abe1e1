// clip_coef (stage 2 of 2 of grad_norm): total norm and clip coefficient of clip_grad_norm_
//   sq = sum_k partial[k] + extra_sq;  total = sqrt(sq)
//   coef = min((1 / (total + 1e-6)) * max_norm, 1)      (torch: max_norm / (total + 1e-6), clamped)
//   out = [total, coef, sq]
// extra_sq lets a ZeRO rank add the other ranks' squared sums (all-reduced on the host).
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 partial  read        [count] partial sums of squares
//   2 out      read_write  [3]
// dispatch: (1, 1, 1)

struct Params { count: u32, max_norm: f32, extra_sq: f32, run: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

override WG: u32 = 64;
var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  var s = 0.0;
  for (var i = lid; i < params.count; i += WG) { s += partial[i]; }
  sums[lid] = s;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) { sums[lid] += sums[lid + stride]; }
    workgroupBarrier();
  }
  if (lid == 0u) {
    let sq = sums[0] + params.extra_sq;
    let total = sqrt(sq);
    out[0] = total;
    out[1] = min((1.0 / (total + 1e-6)) * params.max_norm, 1.0);
    out[2] = sq;
  }
}
