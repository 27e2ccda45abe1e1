// conv2d_backward_weight_reduce_subgroup (stage 2 of 2, where the device has the `subgroups`
// feature): the same sums as conv2d_backward_weight_reduce, with the lanes of each sum added by
// subgroup shuffles instead of a tree in workgroup memory (no barriers):
//   grad[w_off + co*K + j] += sum_s partial[s, co, j]   for j < K = CI*9
//   grad[b_off + co]       += sum_s partial[s, co, K]
// for each of R ranks sharing a device (dispatch y; R = 1 otherwise): rank r's S slices follow rank
// r-1's, and its sums go rank_grad floats further into `grad` (the batched step, rank-batch.ts).
// A workgroup is exactly one subgroup of SG invocations (the host sets SG to the adapter's subgroup
// size and uses this kernel only where that size is fixed); it owns OUTS consecutive sums, and its
// SG/OUTS lanes per sum each add every (SG/OUTS)-th slice, reading OUTS neighbouring floats per
// slice. Positions within the subgroup come from subgroup_invocation_id, so the XOR butterfly over
// masks OUTS, 2*OUTS, .. SG/2 adds exactly the lanes of one sum. OUTS is a power of two <= SG.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 partial  read        [R, S, CO, K + 1]
//   2 grad     read_write  flat gradients: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off (rank r's
//                          rank_grad floats after rank r-1's)
// dispatch: (ceil(CO * (K+1) / OUTS), R, 1); workgroup size SG

enable subgroups;

struct Params { co: u32, k: u32, splits: u32, w_off: u32, b_off: u32, rank_grad: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> grad: array<f32>;

override OUTS: u32 = 4;
override SG: u32 = 32;

@compute @workgroup_size(SG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(subgroup_invocation_id) p: u32) {
  let lanes = SG / OUTS;
  let k1 = params.k + 1u;
  let stride = params.co * k1;
  let o = p % OUTS;
  let lane = p / OUTS;
  let i = wid.x * OUTS + o;
  let ic = min(i, stride - 1u); // past the end: read a valid sum, write nothing
  let base = wid.y * params.splits * stride;
  var sum = 0.0;
  for (var s = lane; s < params.splits; s += lanes) { sum += partial[base + s * stride + ic]; }
  // Every invocation takes part in every shuffle (uniform control flow), then lane 0 writes.
  for (var m = OUTS; m < SG; m *= 2u) { sum += subgroupShuffleXor(sum, m); }
  if (lane != 0u || i >= stride) { return; }
  let co = i / k1;
  let j = i % k1;
  let g = wid.y * params.rank_grad;
  if (j < params.k) {
    grad[g + params.w_off + co * params.k + j] += sum;
  } else {
    grad[g + params.b_off + co] += sum;
  }
}
