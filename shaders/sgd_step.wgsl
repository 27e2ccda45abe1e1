// sgd_step: one torch.optim.SGD step over a contiguous slice of the flat parameters
//   d = g + weight_decay * p
//   buf = first ? d : momentum * buf + (1 - dampening) * d        (only when momentum != 0)
//   d = nesterov ? d + momentum * buf : buf
//   p = p - lr * d
// Element i of the slice is parameter p_off + i, gradient g_off + i and state i (so a ZeRO rank
// can hold the state of its slice only). Scalars arrive as float32, as PyTorch casts them.
//
// params.run == 0: nothing is written (an fp16 step the GPU's loss scaler skips: Recorder.gated).
//
// bindings (group 0):
//   0 params    uniform     Params
//   1 grad      read        flat gradients
//   2 theta     read_write  flat parameters
//   3 momentum  read_write  [count] momentum buffers (unused when params.momentum == 0)
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params {
  count: u32, p_off: u32, g_off: u32, first: u32,
  lr: f32, momentum: f32, dampening: f32, weight_decay: f32, nesterov: u32, run: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read_write> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> momentum: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (params.run == 0u) { return; } // a step the GPU's loss scaler skips (Recorder.gated)
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  let p = theta[params.p_off + i];
  var d = grad[params.g_off + i];
  if (params.weight_decay != 0.0) { d = fma(p, params.weight_decay, d); }
  if (params.momentum != 0.0) {
    var buf = d;
    if (params.first == 0u) { buf = fma(d, 1.0 - params.dampening, momentum[i] * params.momentum); }
    momentum[i] = buf;
    if (params.nesterov == 1u) { d = fma(buf, params.momentum, d); } else { d = buf; }
  }
  theta[params.p_off + i] = fma(d, -params.lr, p);
}
