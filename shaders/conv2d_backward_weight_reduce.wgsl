// conv2d_backward_weight_reduce (stage 2 of 2): adds the S split-K slices of
// conv2d_backward_weight(_tiled) into the gradients (accumulating, like PyTorch's .grad +=); the
// linear layers' tiled weight gradient (linear_backward_weight_tiled) writes the same layout, with
// co = O outputs and K = I inputs, and is summed here too:
//   grad[w_off + co*K + j] += sum_s partial[s, co, j]   for j < K = CI*9
//   grad[b_off + co]       += sum_s partial[s, co, K]
// for each of R ranks sharing a device (dispatch y; R = 1 otherwise): rank r's S slices follow rank
// r-1's, and its sums go rank_grad floats further into `grad` (the batched step, rank-batch.ts).
// A workgroup owns OUTS consecutive sums; its LANES lanes each add every LANES-th slice (reading
// OUTS neighbouring floats per slice), then the lanes are added pairwise in workgroup memory.
// LANES = 1 is a plain serial sum (SwiftShader); a layer with few outputs and thousands of
// slices (conv1 on a real GPU) needs the lanes to spread the reads. LANES is a power of two.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 partial  read        [R, S, CO, K + 1]
//   2 grad     read_write  flat gradients: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off (rank r's
//                          rank_grad floats after rank r-1's)
// dispatch: (ceil(CO * (K+1) / OUTS), R, 1); workgroup size OUTS * LANES

struct Params { co: u32, k: u32, splits: u32, w_off: u32, b_off: u32, rank_grad: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;

override OUTS: u32 = 64;
override LANES: u32 = 1;

var<workgroup> lanes: array<f32, OUTS * LANES>;

@compute @workgroup_size(OUTS * LANES)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let k1 = params.k + 1u;
  let stride = params.co * k1;
  let o = t % OUTS;
  let lane = t / OUTS;
  let i = wid.x * OUTS + o;
  let ic = min(i, stride - 1u); // past the end: read a valid sum, write nothing
  let base = wid.y * params.splits * stride;
  var sum = 0.0;
  for (var s = lane; s < params.splits; s += LANES) { sum += partial[base + s * stride + ic]; }
  lanes[t] = sum;
  for (var half = LANES / 2u; half > 0u; half /= 2u) {
    workgroupBarrier();
    if (lane < half) { lanes[t] += lanes[t + half * OUTS]; }
  }
  if (lane != 0u || i >= stride) { return; }
  let total = lanes[o];
  let co = i / k1;
  let j = i % k1;
  let g = wid.y * params.rank_grad;
  if (j < params.k) {
    grad[g + params.w_off + co * params.k + j] += total;
  } else {
    grad[g + params.b_off + co] += total;
  }
}
