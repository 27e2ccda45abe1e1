// adam_step: one torch.optim.Adam / AdamW step over a contiguous slice of the flat parameters
//   AdamW (decoupled == 1): p = p * (1 - lr * weight_decay)       before the moments
//   Adam with weight_decay:  g = g + weight_decay * p
//   m = lerp(m, g, 1 - beta1)                 (torch >= 2.1: m + (1 - beta1) * (g - m), one fma)
//   v = v * beta2 + (1 - beta2) * g * g
//   p = p + (-step_size * m) / (sqrt(v) / bc2_sqrt + eps)  eps after the bias correction, and the
//   product before the division, as torch's addcdiv_ evaluates it
// The host computes step_size = lr / (1 - beta1^t), bc2_sqrt = sqrt(1 - beta2^t) and
// decay = 1 - lr * weight_decay in float64 and rounds them to float32, as PyTorch does.
// Element i of the slice is parameter p_off + i, gradient g_off + i and state i.
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 grad    read        flat gradients
//   2 theta   read_write  flat parameters
//   3 m       read_write  [count] first moments (exp_avg)
//   4 v       read_write  [count] second moments (exp_avg_sq)
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params {
  count: u32, p_off: u32, g_off: u32, decoupled: u32,
  one_minus_beta1: f32, beta2: f32, one_minus_beta2: f32, eps: f32,
  step_size: f32, bc2_sqrt: f32, weight_decay: f32, decay: f32, run: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read_write> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  var p = theta[params.p_off + i];
  var g = grad[params.g_off + i];
  if (params.decoupled == 1u) {
    p = p * params.decay;
  } else if (params.weight_decay != 0.0) {
    g = fma(p, params.weight_decay, g);
  }
  let mi = fma(params.one_minus_beta1, g - m[i], m[i]);
  let vi = fma(params.one_minus_beta2 * g, g, v[i] * params.beta2);
  m[i] = mi;
  v[i] = vi;
  let denom = sqrt(vi) / params.bc2_sqrt + params.eps;
  theta[params.p_off + i] = p + (-params.step_size * mi) / denom;
}
