// conv2d_backward_weight_reduce (stage 2 of 2): adds the S split-K slices of
// conv2d_backward_weight into the gradients (accumulating, like PyTorch's .grad +=):
//   grad[w_off + co*K + j] += sum_s partial[s, co, j]   for j < K = CI*9
//   grad[b_off + co]       += sum_s partial[s, co, K]
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 partial  read        [S, CO, K + 1]
//   2 grad     read_write  flat gradients: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off
// dispatch: (ceil(CO * (K+1) / WG), 1, 1)

struct Params { co: u32, k: u32, splits: u32, w_off: u32, b_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let k1 = params.k + 1u;
  let i = gid.x;
  if (i >= params.co * k1) { return; }
  let stride = params.co * k1;
  var sum = 0.0;
  for (var s = 0u; s < params.splits; s++) { sum += partial[s * stride + i]; }
  let co = i / k1;
  let j = i % k1;
  if (j < params.k) {
    grad[params.w_off + co * params.k + j] += sum;
  } else {
    grad[params.b_off + co] += sum;
  }
}
